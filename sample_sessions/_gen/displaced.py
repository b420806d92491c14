"""pi-displaced-last-exchange.jsonl: the case of the last-turn injection spec.

A real user↔assistant exchange, then five large subagent reports (user-role
messages) with short acknowledgements. At keepRecentTokens 20000 the reports fill
the kept window, so the cut lands on the first report and the real exchange falls
into the summarized part.
"""

from __future__ import annotations

import random

from .pi import PiSession, estimate_tokens

TASKS = [
    ("ci-flaky", "Find out why `integration/payments` fails ~1 in 6 CI runs on main",
     ["tests/integration/payments/test_refunds.py", "tests/integration/conftest.py", ".github/workflows/ci.yml"]),
    ("changelog", "Draft the 2.4.0 changelog from merged PRs since v2.3.2",
     ["CHANGELOG.md", "docs/release-process.md"]),
    ("deps-audit", "Audit dependency updates pending for 2.4.0 and flag anything risky",
     ["requirements.lock", "package-lock.json", "renovate.json"]),
    ("migrations", "Dry-run the 2.4.0 database migrations against the staging snapshot",
     ["migrations/0087_invoice_currency.py", "migrations/0088_backfill_currency.py", "migrations/0089_drop_legacy_totals.py"]),
    ("perf-smoke", "Run the perf smoke suite against the release candidate and compare with 2.3.2",
     ["perf/smoke.yaml", "perf/baseline-2.3.2.json"]),
]

FINDING_LINES = [
    "{f}: checked, no change needed for the release.",
    "{f}: the fixture uses a shared Postgres schema across xdist workers; two workers truncate `refunds` while "
    "a third asserts on it. Reproduced locally with `pytest -n 6 -p no:randomly` 4 times in 20 runs.",
    "{f}: the timeout is 30 s but p99 of the step on main over the last 50 runs is 41 s (GitHub API, workflow "
    "runs endpoint). Not the cause of the flake, but it will start failing as the suite grows.",
    "{f}: 14 merged PRs since v2.3.2 touch this area; 3 are user-visible (#812 invoice currency, #826 CSV "
    "export encoding, #831 webhook retries).",
    "{f}: `cryptography` 42.0.5 → 43.0.1 is a major bump; the changelog drops OpenSSL 1.1 support. Our base "
    "image ships OpenSSL 3.0.13, so fine, but the ARM build image still has 1.1.1w.",
    "{f}: migration 0088 backfills 2.1M rows in one transaction; on the staging snapshot it held an ACCESS "
    "EXCLUSIVE lock on `invoices` for 3 min 12 s. Needs batching before production.",
    "{f}: p95 of `GET /v1/invoices` regressed from 84 ms to 131 ms; the new currency join is missing an index on "
    "`invoice_lines.currency_code`.",
    "{f}: all 412 assertions pass; no diffs against the golden files.",
]


def report(rng: random.Random, label: str, task: str, files: list[str], target_tokens: int) -> str:
    """A subagent's final report as it is announced back to the main session."""
    head = (f"[subagent report] label={label} status=done run=sub_{rng.getrandbits(32):08x} "
            f"duration={rng.randint(6, 31)}m{rng.randint(0, 59):02d}s tokens={rng.randint(40, 160)}k\n\n"
            f"## Task\n{task}\n\n## Result\n")
    body = head
    body += " ".join(rng.sample([
        "Done; details below.", "Finished with one open question for you at the end.",
        "Completed. One item needs a decision before the release.", "No blockers found, one risk noted.",
    ], 1)) + "\n\n## Findings\n"
    for f in files:
        body += "- " + rng.choice(FINDING_LINES).format(f=f) + "\n"
    body += "\n## Evidence\n```\n"
    while estimate_tokens({"role": "user", "content": body}) < target_tokens - 150:
        t = f"2026-03-0{rng.randint(2, 4)}T{rng.randint(8, 17):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        body += rng.choice([
            f"{t} [{label}] $ pytest -n 6 tests/integration/payments -q  → {rng.randint(150, 160)} passed, "
            f"{rng.choice([0, 0, 1, 2])} failed in {rng.uniform(40, 70):.1f}s\n",
            f"{t} [{label}] psql staging -c \"EXPLAIN ANALYZE SELECT ... FROM invoices JOIN invoice_lines ...\" → "
            f"Hash Join (cost=1.{rng.randint(10, 99)}..{rng.randint(4000, 9000)}.00 rows={rng.randint(1000, 90000)}) "
            f"actual time={rng.uniform(20, 140):.3f} ms\n",
            f"{t} [{label}] gh api repos/acme/ledger/actions/runs?branch=main&per_page=50 → run "
            f"{rng.randint(8000000000, 8999999999)} conclusion={rng.choice(['success', 'success', 'failure'])} "
            f"duration={rng.randint(380, 720)}s\n",
            f"{t} [{label}] k6 run perf/smoke.yaml → http_req_duration p(95)={rng.uniform(70, 140):.1f}ms "
            f"checks={rng.uniform(99.2, 100):.2f}% iterations={rng.randint(9000, 12000)}\n",
            f"{t} [{label}] git log v2.3.2..release/2.4 --merges --oneline | wc -l → {rng.randint(38, 44)}\n",
            f"{t} [{label}] pip index versions {rng.choice(['cryptography', 'sqlalchemy', 'celery', 'httpx'])} → "
            f"latest {rng.randint(1, 43)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}\n",
        ])
    body += "```\n\n## Open question\n" + rng.choice([
        "Should 0088 be split into batches of 50k rows (adds ~20 min to the deploy) or run as a separate "
        "post-deploy job?",
        "Do you want the missing index added to 2.4.0 or shipped in 2.4.1?",
        "Is the ARM build image in scope for this release?",
        "None.",
    ]) + "\n"
    return body


def build() -> PiSession:
    s = PiSession(seed=20260304, start="2026-03-04T08:30:00.000Z", cwd="/srv/agents/release-bot", ratio=1.31)
    rng = s.rng
    s.model_change("anthropic", "claude-sonnet-4-5")
    s.thinking_level("medium")
    s.user("Morning. We're cutting ledger 2.4.0 today. Fan the release checklist out to subagents (CI flake, "
           "changelog, dependency audit, migration dry-run, perf smoke) and keep me posted. I'll be in meetings "
           "until 11.", pause=(1, 3))
    s.step("read", {"path": "docs/release-process.md"},
           "# Release process\n\n" + "\n".join(
               f"{i}. {step}" for i, step in enumerate([
                   "Freeze `release/X.Y` from main; only fixes are cherry-picked after the freeze.",
                   "CI must be green three runs in a row on the release branch.",
                   "Changelog drafted from merged PRs, reviewed by the PM.",
                   "Dependency updates reviewed; majors need an explicit owner sign-off.",
                   "Migrations dry-run against the latest staging snapshot; anything holding a lock > 30 s must "
                   "be batched.",
                   "Perf smoke within 10% of the previous release on p95.",
                   "Tag, build images (amd64 + arm64), deploy to staging, then production after 24 h soak.",
               ], 1)) + "\n\nOwners: release manager (Lena Fischer), on-call SRE, PM (Ravi Anand).\n",
           thinking="Read the process doc so the subagent tasks match the checklist.")
    for label, task, files in TASKS:
        s.step("sessions_spawn", {"label": label, "task": task + ". Report findings with evidence; do not push "
                                  "or merge anything.", "files": files},
               f"Spawned subagent run sub_{rng.getrandbits(32):08x} (label={label}). It will announce its result "
               "in this session when done.")
    s.say("Five subagents are running: ci-flaky, changelog, deps-audit, migrations, perf-smoke. Each reports back "
          "here with evidence; none of them can push or merge. I'll summarise when they're all in.")
    # a stretch of earlier work so the summarized part has substance
    for i in range(6):
        s.step("bash", {"command": f"gh pr view {812 + i * 4} --json title,state,mergedAt,labels"},
               '{"title":"' + rng.choice(["Invoice currency support", "CSV export: UTF-8 BOM", "Webhook retries "
                                          "with jitter", "Bump cryptography to 43", "Index invoice_lines.currency_code",
                                          "Docs: release checklist"]) + '","state":"MERGED","mergedAt":"2026-03-0'
               + str(rng.randint(1, 3)) + 'T1' + str(rng.randint(0, 9)) + ':00:00Z","labels":[{"name":"release-2.4"}]}'
               + "\nReview notes:\n" + "\n".join("- " + line.replace("{f}", "the PR")
                                                 for line in rng.sample(FINDING_LINES, 4)),
               thinking="While the subagents work, collect the merged PR metadata the changelog will need "
                        "anyway." if i == 0 else None)
    s.say("Collected the release-2.4 PR metadata (6 PRs) for cross-checking the changelog subagent's draft.")
    # the real exchange that will be displaced
    s.user("Back early. Quick status? And one rule for today: do NOT merge the i18n PR (#840) until Lena signs off, "
           "even if CI is green — she found a plural-forms bug in the Polish strings.", pause=(900, 1500))
    s.step("bash", {"command": "gh pr view 840 --json state,mergeable,reviewDecision,statusCheckRollup | jq -c ."},
           '{"state":"OPEN","mergeable":"MERGEABLE","reviewDecision":"REVIEW_REQUIRED","statusCheckRollup":'
           '[{"name":"ci","conclusion":"SUCCESS"},{"name":"lint","conclusion":"SUCCESS"}]}',
           thinking="Check #840's state so the status answer is accurate, and note the no-merge rule.")
    s.say("Status: all five subagents are still running (started 08:31-08:33). PR #840 (i18n) is open, CI green, "
          "review required — understood: **#840 stays unmerged until Lena signs off** (Polish plural forms), "
          "regardless of CI. I'll flag it again when we assemble the release.")
    # the flood of subagent announcements
    sizes = [4700, 3950, 4000, 3900, 4050]
    for (label, task, files), size in zip(TASKS, sizes):
        s.user(report(rng, label, task, files, size), pause=(120, 600))
        s.say(rng.choice([
            f"Noted the {label} report; adding its open question to the release notes for you.",
            f"{label} is in. Nothing to act on until you decide the open question.",
            f"Thanks — {label} recorded. Waiting for the remaining subagents.",
        ]))
    return s


def kept_window_check(s: PiSession, keep: int = 20000) -> tuple[int, int]:
    """(index of the last real user message, first kept index) on the active path at `keep`."""
    from .pi import find_cut_point

    path = s.path()
    last_real = max(i for i, e in enumerate(path) if e["type"] == "message" and e["message"]["role"] == "user"
                    and not e["message"]["content"][0]["text"].startswith("[subagent report]"))
    cut, _, _ = find_cut_point(path, 0, len(path), keep)
    return last_real, cut
