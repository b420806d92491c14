"""OpenClaw sessions (its JSONL transcripts are pi files; its SQLite store comes here)."""
