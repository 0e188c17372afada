"""Independent implementations the tests compare the production code with."""
