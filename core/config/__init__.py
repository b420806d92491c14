"""Configuration: the settings model and where it is read from."""
