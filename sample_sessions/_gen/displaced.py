"""pi-displaced-last-exchange.jsonl: the case of the last-turn injection spec.

A real user↔assistant exchange, then five large subagent reports (user-role
messages) with short acknowledgements. At keepRecentTokens 20000 the reports fill
the kept window, so the cut lands on the first report and the real exchange falls
into the summarized part.
"""

from __future__ import annotations

import json
import random

from .pi import PiSession, estimate_tokens

TASKS = [
    {
        "label": "ci-flaky", "task": "Find out why `integration/payments` fails ~1 in 6 CI runs on main",
        "files": ["tests/integration/payments/test_refunds.py", "tests/integration/conftest.py", ".github/workflows/ci.yml"],
        "result": "Root cause found; fix proposed, not pushed.",
        "findings": [
            "tests/integration/conftest.py: the `db` fixture uses one shared Postgres schema across pytest-xdist "
            "workers; the `refunds` truncation in one worker races with assertions in another. Reproduced locally "
            "with `pytest -n 6 -p no:randomly tests/integration/payments` 4 times in 20 runs.",
            "tests/integration/payments/test_refunds.py: `test_partial_refund_idempotent` is the usual victim "
            "(11 of the last 14 failures), because it asserts on a row count.",
            ".github/workflows/ci.yml: the integration step timeout is 30 min and p99 over the last 50 runs is "
            "41 s, so timeouts are not involved.",
            "Proposed fix (branch ci-flaky/schema-per-worker, not pushed): a schema per xdist worker "
            "(`search_path = test_{worker_id}`); 50 consecutive local runs green.",
        ],
        "evidence": [
            "$ pytest -n 6 -p no:randomly tests/integration/payments -q  → {a} passed, {b} failed in {t:.1f}s",
            "$ gh run view {run} --log-failed | grep -m1 AssertionError  → assert {c} == 1 (test_partial_refund_idempotent)",
            "$ pytest -n 6 tests/integration/payments -q (schema-per-worker)  → {a} passed in {t:.1f}s",
        ],
        "question": "Do you want the schema-per-worker fix in 2.4.0 (test-only change) or after the release?",
    },
    {
        "label": "changelog", "task": "Draft the 2.4.0 changelog from merged PRs since v2.3.2",
        "files": ["CHANGELOG.md", "docs/release-process.md"],
        "result": "Draft ready in CHANGELOG.md (uncommitted on the subagent's worktree).",
        "findings": [
            "41 merged PRs since v2.3.2; 3 user-visible: #812 invoice currency support, #826 CSV export with UTF-8 "
            "BOM, #831 webhook retries with jitter.",
            "#818 (index on invoice_lines.currency_code) is an ops note, not a feature; listed under 'Operations'.",
            "Two PRs lack a changelog label (#822, #835); classified by reading the diff.",
            "#840 (i18n, Polish plural forms) is open and therefore not in the draft.",
        ],
        "evidence": [
            "$ git log v2.3.2..release/2.4 --merges --oneline | wc -l  → {n}",
            "$ gh pr list --state merged --label release-2.4 --json number,title --limit 100 | jq length  → {n}",
            "$ gh pr view {pr} --json labels,files | jq '.files | length'  → {c}",
        ],
        "question": "Should #822 (internal retry tweak) be mentioned at all?",
    },
    {
        "label": "deps-audit", "task": "Audit dependency updates pending for 2.4.0 and flag anything risky",
        "files": ["requirements.lock", "package-lock.json", "renovate.json"],
        "result": "One risky update, the rest are patch releases.",
        "findings": [
            "`cryptography` 42.0.5 → 43.0.1 is a major bump that drops OpenSSL 1.1 support. The amd64 base image "
            "ships OpenSSL 3.0.13 (fine); the arm64 build image still has 1.1.1w and will fail to import.",
            "`sqlalchemy` 2.0.29 → 2.0.35, `httpx` 0.27.0 → 0.27.2, `celery` 5.3.6 → 5.3.7: patch releases, "
            "changelogs reviewed, nothing relevant.",
            "package-lock.json: 3 dev-only bumps (eslint plugins), no runtime effect.",
        ],
        "evidence": [
            "$ docker run --rm ledger-build:arm64 openssl version  → OpenSSL 1.1.1w  11 Sep 2023",
            "$ pip index versions {pkg}  → latest {v}",
            "$ pip-audit -r requirements.lock  → No known vulnerabilities found ({n} packages)",
        ],
        "question": "Is the arm64 image in scope for 2.4.0? If yes, it needs the OpenSSL 3 base first.",
    },
    {
        "label": "migrations", "task": "Dry-run the 2.4.0 database migrations against the staging snapshot",
        "files": ["migrations/0087_invoice_currency.py", "migrations/0088_backfill_currency.py",
                  "migrations/0089_drop_legacy_totals.py"],
        "result": "0087 and 0089 are fine; 0088 violates the 30 s lock rule.",
        "findings": [
            "0087_invoice_currency: adds a nullable column, metadata-only, 40 ms.",
            "0088_backfill_currency: updates 2.1M rows in one transaction and holds an ACCESS EXCLUSIVE lock on "
            "`invoices` for 3 min 12 s on the snapshot. The release process requires batching above 30 s.",
            "0089_drop_legacy_totals: drops two columns, 120 ms, but must run after the 2.4 code is deployed "
            "everywhere (2.3 still reads `legacy_total`).",
        ],
        "evidence": [
            "$ alembic upgrade 0088 --sql | psql staging_snapshot  → UPDATE {n}000 rows, lock held {t:.1f}s",
            "$ psql staging_snapshot -c \"select count(*) from invoices\"  → {n}481",
            "$ alembic upgrade head (batched 50k rows per transaction)  → max lock {b}.{c}s",
        ],
        "question": "Batch 0088 in 50k-row chunks (adds ~20 min to the deploy) or run it as a post-deploy job?",
    },
    {
        "label": "perf-smoke", "task": "Run the perf smoke suite against the release candidate and compare with 2.3.2",
        "files": ["perf/smoke.yaml", "perf/baseline-2.3.2.json"],
        "result": "One regression above the 10% rule.",
        "findings": [
            "GET /v1/invoices: p95 84 ms → 131 ms (+56%). The currency join hits `invoice_lines` without an index "
            "on `currency_code`; #818 adds it but is not in the release branch.",
            "POST /v1/invoices, GET /v1/customers, webhooks: within ±4% of 2.3.2.",
        ],
        "evidence": [
            "$ k6 run perf/smoke.yaml --env TARGET=rc  → http_req_duration p(95)={t:.1f}ms checks=100.00%",
            "$ psql rc -c \"EXPLAIN ANALYZE ... invoice_lines ...\"  → Seq Scan on invoice_lines ({n}000 rows)",
            "$ k6 run perf/smoke.yaml --env TARGET=rc+818  → p(95)={b}{c}.2ms",
        ],
        "question": "Cherry-pick #818 into release/2.4?",
    },
]


def report(rng: random.Random, spec: dict, run_id: str, target_tokens: int) -> str:
    """A subagent's final report as it is announced back to the main session."""
    body = (f"[subagent report] label={spec['label']} status=done run={run_id} "
            f"duration={rng.randint(6, 31)}m{rng.randint(0, 59):02d}s tokens={rng.randint(40, 160)}k\n\n"
            f"## Task\n{spec['task']}\n\n## Result\n{spec['result']}\n\n## Findings\n"
            + "".join(f"- {f}\n" for f in spec["findings"])
            + "\n## Files looked at\n" + "".join(f"- {f}\n" for f in spec["files"]) + "\n## Evidence (command log)\n```\n")
    lines: list[str] = []
    while estimate_tokens({"role": "user", "content": body + "".join(" " * 21 + x for x in lines)}) < target_tokens - 60:
        line = rng.choice(spec["evidence"]).format(
            a=rng.randint(150, 160), b=rng.choice([0, 0, 1, 2]), c=rng.randint(2, 9), t=rng.uniform(40, 140),
            n=rng.randint(38, 44), run=rng.randint(8000000000, 8999999999), pr=rng.randint(800, 839),
            pkg=rng.choice(["sqlalchemy", "httpx", "celery", "cryptography"]),
            v=f"{rng.randint(0, 43)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}")
        lines.append(line + "\n")
    seconds = sorted(rng.sample(range(2 * 60, 24 * 60), len(lines)))  # 08:32-08:54, while the subagent ran
    body += "".join(f"2026-03-04T08:{30 + sec // 60:02d}:{sec % 60:02d}Z {line}" for sec, line in zip(seconds, lines))
    return body + f"```\n\n## Open question\n{spec['question']}\n"


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
    runs = {}
    for spec in TASKS:
        runs[spec["label"]] = f"sub_{rng.getrandbits(32):08x}"
        s.step("sessions_spawn", {"label": spec["label"], "task": spec["task"] + ". Report findings with evidence; "
                                  "do not push or merge anything.", "files": spec["files"]},
               f"Spawned subagent run {runs[spec['label']]} (label={spec['label']}). It will announce its result "
               "in this session when done.")
    s.say("Five subagents are running: ci-flaky, changelog, deps-audit, migrations, perf-smoke. Each reports back "
          "here with evidence; none of them can push or merge. I'll summarise when they're all in.")
    # a stretch of earlier work so the summarized part has substance
    prs = [(812, "Invoice currency support", "feature"), (818, "Index invoice_lines.currency_code", "ops"),
           (822, "Retry tweak for the ledger sync worker", None), (826, "CSV export: UTF-8 BOM", "feature"),
           (831, "Webhook retries with jitter", "feature"), (835, "Bump cryptography to 43", None)]
    for i, (num, title, label) in enumerate(prs):
        labels = [{"name": "release-2.4"}] + ([{"name": f"changelog:{label}"}] if label else [])
        files = rng.randint(2, 19)
        s.step("bash", {"command": f"gh pr view {num} --json number,title,state,mergedAt,labels,files,body"},
               json.dumps({"number": num, "title": title, "state": "MERGED",
                           "mergedAt": f"2026-03-0{rng.randint(1, 3)}T1{rng.randint(0, 9)}:{rng.randint(10, 59)}:00Z",
                           "labels": labels,
                           "files": [{"path": p, "additions": rng.randint(1, 120), "deletions": rng.randint(0, 40)}
                                     for p in rng.sample(["ledger/api/invoices.py", "ledger/models.py",
                                                          "ledger/export/csv.py", "ledger/webhooks/retry.py",
                                                          "migrations/0087_invoice_currency.py",
                                                          "migrations/0088_backfill_currency.py",
                                                          "requirements.lock", "tests/api/test_invoices.py",
                                                          "tests/webhooks/test_retry.py", "docs/api.md"],
                                                         min(files, 6))],
                           "body": f"{title}. See the linked issue for context; tested locally and on staging."},
                          indent=1),
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
    for n, (spec, size) in enumerate(zip(TASKS, sizes), 1):
        s.user(report(rng, spec, runs[spec["label"]], size), pause=(120, 600))
        s.say(f"{spec['label']} is in ({n}/5). Its open question is queued for you: {spec['question']}"
              + (" Waiting for the others." if n < 5 else " That was the last one."))
    return s


def kept_window_check(s: PiSession, keep: int = 20000) -> tuple[int, int]:
    """(index of the last real user message, first kept index) on the active path at `keep`."""
    from .pi import find_cut_point

    path = s.path()
    last_real = max(i for i, e in enumerate(path) if e["type"] == "message" and e["message"]["role"] == "user"
                    and not e["message"]["content"][0]["text"].startswith("[subagent report]"))
    cut, _, _ = find_cut_point(path, 0, len(path), keep)
    return last_real, cut
