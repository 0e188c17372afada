"""Application support, the bottom layer: errors, safe file writing, the app's home folder
and its bundled resources. Imports nothing else of the core."""
