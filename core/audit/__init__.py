"""Explaining compactions: lost facts, warnings, timeline and replay."""
