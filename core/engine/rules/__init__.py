"""Planner rule sets: how each agent version decides where a compaction cuts (pi 0.73.1, current pi, OpenClaw 2026.9)."""
