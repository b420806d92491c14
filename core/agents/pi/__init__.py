"""pi (and OpenClaw JSONL): read, export and append compactions to pi session files."""
