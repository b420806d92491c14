"""The messages an agent's hook and cutline exchange on the inbox socket: one JSON object a line.

Agent → cutline:
- `{"type": "hold", "agent": "pi", "preparation": {...}, ...}`: a compaction to review; cutline answers `held`;
- `{"type": "resume", "id": ID}`: the same wait again after the listener went away (a new desk, `inbox --watch`);
- `{"type": "timeout", "id": ID}` / `{"type": "withdraw", "id": ID}`: the agent stops waiting;
- `{"type": "ping"}`: is anyone listening (answered `pong`).

cutline → agent: `held` (with the id), then `answer` (`accept` with the compaction, or `reject`),
or `refused` with a reason, at any point, for a message it cannot take.

A line longer than the limit, or one that is not such an object, is refused in one line and the
connection closed: a bad client never takes the listener down.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# pi's preparation carries every message to summarize (images included): room for a large session
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
PROTOCOL = 1


class Refused(ValueError):
    """A message the listener will not take; its text is what the agent is told."""


class Hold(BaseModel):
    """A compaction an agent holds back for review."""

    model_config = ConfigDict(extra="ignore")

    type: Literal["hold"]
    agent: str = Field(min_length=1, max_length=64)
    agentVersion: str | None = Field(default=None, max_length=64)
    sessionFile: str | None = Field(default=None, max_length=4096)
    sessionId: str | None = Field(default=None, max_length=256)
    cwd: str | None = Field(default=None, max_length=4096)
    reason: str | None = Field(default=None, max_length=64)
    timeoutSeconds: float | None = Field(default=None, gt=0)
    customInstructions: str | None = None
    preparation: dict[str, Any] = Field(default_factory=dict)


class Resume(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["resume"]
    id: str = Field(min_length=1, max_length=64)


class Stop(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["timeout", "withdraw"]
    id: str = Field(min_length=1, max_length=64)


class Ping(BaseModel):
    model_config = ConfigDict(extra="ignore")

    type: Literal["ping"]


Message = Hold | Resume | Stop | Ping
_KINDS: dict[str, type[BaseModel]] = {"hold": Hold, "resume": Resume, "timeout": Stop, "withdraw": Stop, "ping": Ping}


def parse(line: bytes) -> Message:
    """One message from one line; Refused with a short reason for anything else."""
    if len(line) > MAX_MESSAGE_BYTES:
        raise Refused(f"message of {len(line):,} bytes is larger than the limit of {MAX_MESSAGE_BYTES:,}")
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise Refused(f"not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise Refused("not a JSON object")
    kind = value.get("type")
    model = _KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise Refused(f"unknown message type {kind!r}")
    try:
        parsed = model.model_validate(value)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise Refused(f"bad {kind} message: {where}: {first['msg']}") from None
    assert isinstance(parsed, Hold | Resume | Stop | Ping)
    return parsed


def encode(message: dict[str, Any]) -> bytes:
    """A reply as one line."""
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


def refused(reason: str) -> bytes:
    return encode({"type": "refused", "reason": reason})
