"""cutline user interfaces: the Textual review desk, the CLI and the web mode."""
