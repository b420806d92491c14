"""Summarizers: anything that turns a summarization request into text."""
