"""Unit tests: core and CLI in process, no terminal, browser or child process of the app."""
