"""One folder per agent release: its planner, summary flow, quality-guard specifics and texts."""
