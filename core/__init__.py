"""cutline engine and data layer: formats, store, token counting, planning, summarizing, audit. Never imports the UI."""
