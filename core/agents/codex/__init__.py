"""Codex CLI rollouts ($CODEX_HOME/sessions/**/rollout-*.jsonl)."""
