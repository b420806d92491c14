"""The desk driven with Textual's pilot, and its snapshots (kept in __snapshots__ next to each module)."""
