"""A session remembers its active path, and forgets it whenever the entries or the leaf change."""

from __future__ import annotations

import pytest

from cutline.core.models import Entry, Session


def _chain(n: int) -> list[Entry]:
    return [Entry(id=f"e{i}", parentId=f"e{i - 1}" if i else None, type="custom") for i in range(n)]


def _ids(path: list[Entry]) -> list[str]:
    return [e.id for e in path]


def test_same_path_twice_each_caller_its_own_list() -> None:
    session = Session(id="s", format="pi", entries=_chain(3))
    first = session.active_path()
    first.append(Entry(id="stray", type="custom"))
    first.reverse()
    assert _ids(session.active_path()) == ["e0", "e1", "e2"]
    assert session.active_path() is not session.active_path()


def test_appended_entry_moves_the_path() -> None:
    session = Session(id="s", format="pi", entries=_chain(3))
    assert _ids(session.active_path()) == ["e0", "e1", "e2"]
    session.entries.append(Entry(id="e3", parentId="e1", type="custom"))
    assert _ids(session.active_path()) == ["e0", "e1", "e3"]


def test_leaf_change_and_new_entry_list_move_the_path() -> None:
    session = Session(id="s", format="pi", entries=_chain(4))
    assert _ids(session.active_path()) == ["e0", "e1", "e2", "e3"]
    session.leaf_id = "e1"
    assert _ids(session.active_path()) == ["e0", "e1"]
    session.leaf_id = None
    session.entries = _chain(2)
    assert _ids(session.active_path()) == ["e0", "e1"]


def test_last_entry_replaced_moves_the_path() -> None:
    session = Session(id="s", format="pi", entries=_chain(3))
    assert _ids(session.active_path()) == ["e0", "e1", "e2"]
    session.entries[-1] = Entry(id="x", parentId="e0", type="custom")
    assert _ids(session.active_path()) == ["e0", "x"]


def test_copies_compute_their_own_path() -> None:
    session = Session(id="s", format="pi", entries=_chain(3))
    session.active_path()
    other = session.model_copy(update={"entries": _chain(2)})
    assert _ids(other.active_path()) == ["e0", "e1"]
    assert _ids(session.active_path()) == ["e0", "e1", "e2"]


def test_the_path_is_walked_once_while_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    walks: list[str] = []
    walk = Session.path_to

    def counted(self: Session, entry_id: str, index: dict[str, Entry] | None = None) -> list[Entry]:
        walks.append(entry_id)
        return walk(self, entry_id, index)

    monkeypatch.setattr(Session, "path_to", counted)
    session = Session(id="s", format="pi", entries=_chain(3))
    for _ in range(3):
        assert _ids(session.active_path()) == ["e0", "e1", "e2"]
    assert walks == ["e2"]


def test_remembering_changes_neither_equality_nor_serialization() -> None:
    session = Session(id="s", format="pi", entries=_chain(3))
    twin = session.model_copy(deep=True)
    dumped = session.model_dump_json()
    session.active_path()
    assert session == twin
    assert session.model_dump_json() == dumped


def test_a_dead_session_leaves_nothing_behind() -> None:
    import gc

    from cutline.core import models

    session = Session(id="s", format="pi", entries=_chain(3))
    session.active_path()
    key = id(session)
    assert key in models._PATHS
    del session
    gc.collect()
    assert key not in models._PATHS
