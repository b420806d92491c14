"""Short labels the desk's screens share, worded as `cutline ls` words them."""

from __future__ import annotations


def format_label(fmt: str, version: int | None) -> str:
    """The agent format with its file version, e.g. `pi v1`."""
    return f"{fmt} v{version}" if version is not None else fmt
