"""Short labels the desk's screens share, worded as `cutline ls` words them."""

from __future__ import annotations


def format_label(fmt: str, version: int | None) -> str:
    """The agent format with its file version, e.g. `pi v1`."""
    return f"{fmt} v{version}" if version is not None else fmt


def plural(count: int, one: str, many: str) -> str:
    """`1 entry`, `2 entries`: the count with thousands separators and the word that agrees with it."""
    return f"{count:,} {one if count == 1 else many}"
