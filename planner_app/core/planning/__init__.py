"""Planning: checking a plan (sensitivity, noise, accuracy, ε), whether it is ready to
release, the edits the app makes to a plan, the app's settings and the starter plans."""
