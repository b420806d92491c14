"""Session file formats: sniffing, readers for pi/OpenClaw, Claude Code and Codex, and the pi writer."""
