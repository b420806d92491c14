"""The desk and the CLI make the same plan and the same proposal of every sample and fixture session.

The CLI path is `cutline plan --json` and `cutline compact --json` as a person runs them.
The desk path is what the review screen's workers call: `workbench.open_for_review`
(the path whole, and again held as stored columns where the store has them, as a very
long session is), the screen's plan (`workbench.plan_on`), then `workbench.propose` with
the session as the screen holds it. Each runs in its own fresh store. What differs by
nature (ids, times) is left out; everything else must be equal, refusals included.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from typing import Any

import pytest

from cutline.core import workbench
from cutline.core.engine.compaction_plan import CompactionPlan
from cutline.core.store import Store
from tests.support.cli import run
from tests.support.paths import ROOT
from tests.support.session_files import SESSION_FILES

# by nature different between two runs: ids, the entry id picked when stored, clock times
VARYING = {"id", "created_at", "entryId", "timings"}


# the settings' own keepRecentTokens (most sessions keep everything), and one that summarizes most of each
KEEP = (None, 400)


def _cli(
    capsys: pytest.CaptureFixture[str], file: Path, db: Path, keep: int | None
) -> tuple[dict[str, Any], dict[str, Any] | str]:
    """`cutline plan --json` and `cutline compact --json`: the plan, and the proposal or the refusal's line."""
    import json

    flags = ["--json", "--db", str(db)] + ([] if keep is None else ["--keep-recent-tokens", str(keep)])
    code, out, err = run(capsys, "plan", *flags, str(file))
    assert code == 0, err
    plan = json.loads(out)
    code, out, err = run(capsys, "compact", *flags, str(file))
    if code != 0:
        return plan, err.strip().removeprefix("cutline: ").removeprefix("error: ")
    return plan, {k: v for k, v in json.loads(out).items() if k not in VARYING}


def _desk(
    file: Path, db: Path, lazy_entries: int, keep: int | None
) -> tuple[dict[str, Any], dict[str, Any] | str, bool]:
    """The review screen's calls: open, plan (keepRecentTokens set as the settings panel sets it), propose;
    and whether the path was held as stored columns."""
    with Store(db) as store:
        opened = workbench.open_for_review(store, str(file), lazy_entries=lazy_entries)
        settings = opened.settings if keep is None else opened.settings.with_overrides(keepRecentTokens=keep)
        the_plan: CompactionPlan = workbench.plan_on(opened.path_index, settings, opened.session)
        plan = the_plan.model_dump(mode="json", exclude={"entryTokens"})
        plan["sessionId"] = opened.session.id
        outcome = workbench.propose(store, opened, the_plan, settings, today=dt.date.today())
    assert outcome is not None
    if isinstance(outcome, workbench.Refusal):
        return plan, outcome.reason, opened.stored is not None
    proposal = {k: v for k, v in outcome.model_dump(mode="json").items() if k not in VARYING}
    return plan, proposal, opened.stored is not None


@pytest.mark.parametrize("file", SESSION_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_desk_and_the_cli_plan_and_propose_the_same(
    file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / file.name
    shutil.copyfile(file, copy)
    for keep in KEEP:
        cli_plan, cli_proposal = _cli(capsys, copy, tmp_path / f"cli-{keep}.db", keep)
        for name, lazy in (("whole", workbench.LAZY_ENTRIES), ("stored", 1)):
            desk_plan, desk_proposal, _ = _desk(copy, tmp_path / f"desk-{name}-{keep}.db", lazy, keep)
            assert desk_plan == cli_plan, (name, keep, file.name)
            assert desk_proposal == cli_proposal, (name, keep, file.name)


def test_the_comparison_sees_both_shapes_and_both_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Not vacuous: some sessions are held as stored columns, some proposals are made and some refused."""
    shapes, answers = set(), set()
    for file in SESSION_FILES:
        if "pi-" not in file.name and "claude" not in file.name:
            continue
        copy = tmp_path / file.name
        shutil.copyfile(file, copy)
        _, proposal, stored = _desk(copy, tmp_path / f"{file.stem}.db", 1, 400)
        shapes.add(stored)
        answers.add(isinstance(proposal, str))
    assert shapes == {True, False}
    assert answers == {True, False}
