"""The compaction engine: plan the cut, rebuild the context, compact, validate."""
