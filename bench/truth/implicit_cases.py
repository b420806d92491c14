"""Sessions whose facts are implicit: stated by the assistant's conclusion or only by a tool's output.

Written by hand. Each case is one pi session (a project of its own, not catalogue.py's
themes) planting six facts that an extractive summarizer, which copies the user's
sentences and the assistant's cue-marked decisions, structurally misses while a careful
model keeps them:

- `concluded` — a decision reached over two turns (the user asks which, the assistant
  looks, the user asks again) and stated only as the assistant's conclusion;
- `learnt`    — a constraint learnt from a tool result (a failing command) that the
  assistant puts into words;
- `measured`  — a number that appears only in a tool's output (the assistant does not
  restate it);
- `asked`     — a rule the user phrased as a question ("could you leave X alone?");
- `role`      — a file's role, explained by the assistant after reading it;
- `request`   — the latest request.

Per fact the truth-side judge (`present`: regexes that must all match the lower-cased
summary; `contra`: any match means the summary states it otherwise), as judge.py does.
Per case a `good` summary (as a careful model writes it, pi's checkpoint sections) and
a `bad` one (deliberately poor: vague, and stating one fact otherwise).

The held-out cases were written first, before the audit was run on any of them, and
are never tuned on.
"""

from __future__ import annotations

from typing import Any

# importance the truth gives each kind (the scale of catalogue.WEIGHTS)
WEIGHTS = {"request": 3.0, "asked": 3.0, "learnt": 3.0, "concluded": 2.0, "measured": 1.5, "role": 1.0}
KINDS = tuple(WEIGHTS)

# an event: ("user", text) | ("say", text) | ("tool", "read" | "bash", arg, result, is_error)
Case = dict[str, Any]


def listing(prefix: str) -> str:
    """A long directory listing that establishes no fact."""
    return "\n".join(
        f"-rw-r--r-- 1 dev dev {900 + 53 * i:>6} Nov 24 10:{i:02d} {prefix}_{i:02d}.txt" for i in range(40)
    )


HELD_OUT: list[Case] = [
    {
        "name": "newsletter",
        "cwd": "/home/dev/newsletter",
        "events": [
            (
                "user",
                "The weekly digest lands in the middle of the night for readers in Asia. "
                "Should we batch the send by timezone, or keep one send for everybody at 00:00 UTC?",
            ),
            (
                "say",
                "Both can work: per-zone batches need the scheduler to know each reader's zone, a single send is "
                "simpler but reaches Tokyo at 9 in the morning and Sydney at 11. Let me look at the sender first.",
            ),
            (
                "tool",
                "read",
                "sender/schedule.go",
                "package sender\n\n// Run is called by cron every 15 minutes.\nfunc Run(ctx context.Context) error {\n"
                "\trecipients := loadDue(ctx, time.Now())\n\treturn pool.Send(ctx, batches(recipients, 500))\n}\n",
                False,
            ),
            (
                "say",
                "sender/schedule.go is the cron entry point: every 15 minutes it collects the readers who are due "
                "and hands them to the SMTP pool in batches of 500.",
            ),
            ("tool", "bash", "ls -la data/", listing("export"), False),
            ("user", "Could you leave the unsubscribe footer template alone? Legal signed off on that exact wording."),
            ("user", "And how many active subscribers do we have? The mail provider bills per thousand."),
            (
                "tool",
                "bash",
                "psql -c 'select count(*) from subscribers where active'",
                " count \n-------\n 48213\n(1 row)",
                False,
            ),
            ("say", "That is the current active count, straight from the subscribers table."),
            ("user", "ok. so which way for the send?"),
            (
                "say",
                "Per-timezone batches. The scheduler already wakes every 15 minutes, so each zone can get its digest "
                "at 08:00 local with no new service; the single midnight send would keep the problem for half the "
                "readers.",
            ),
            ("user", "Run the smoke test against the relay before we change anything."),
            (
                "tool",
                "bash",
                "make smoke",
                "go run ./cmd/smoke\nsmoke: dial tcp: lookup smtp.relay.internal: no such host\nexit status 1\n"
                "make: *** [smoke] Error 1",
                True,
            ),
            (
                "say",
                "This CI runner cannot reach the SMTP relay (its DNS name does not even resolve here), so the smoke "
                "test has to run against the local mailpit container instead of the real relay.",
            ),
            ("user", "Now add a per-zone send time setting to the admin settings page."),
        ],
        "facts": {
            "concluded": (
                [r"(per|by|each)[- ]?time ?zone|per[- ]zone"],
                [r"(send|sending) (everything|all|the digest|it) at 00:00"],
            ),
            "learnt": (
                [
                    r"(cannot|can'?t|not|no way to|unable to) (reach|resolve|connect to)[^.\n]{0,40}(relay|smtp)"
                    r"|(relay|smtp)[^.\n]{0,40}(unreachable|not reachable|does not resolve|doesn'?t resolve)",
                    r"mailpit",
                ],
                [],
            ),
            "measured": ([r"48[, ]?213|48\.2 ?k"], []),
            "asked": (
                [
                    r"unsubscribe footer",
                    r"(leave|left|keep)[^.\n]{0,50}(alone|as is|untouched|unchanged)|(don'?t|do not|not|never) "
                    r"(touch|change|edit|modify)",
                ],
                [],
            ),
            "role": ([r"schedule\.go", r"cron|every 15 minutes"], []),
            "request": ([r"send time", r"admin"], []),
        },
        "good": """## Goal
Deliver the weekly digest at a sensible local hour for every reader (it currently lands at night in Asia).

## Constraints & Preferences
- Leave the unsubscribe footer template untouched: Legal signed off on its exact wording.
- The CI runner cannot reach the SMTP relay (smtp.relay.internal does not resolve there); smoke tests run against the local mailpit container.

## Progress
### Done
- [x] Read sender/schedule.go: the cron entry point (every 15 minutes), collects due readers and sends batches of 500 through the SMTP pool.
- [x] Counted active subscribers: 48,213 (the provider bills per thousand).
- [x] Ran `make smoke`: fails in CI because the relay is unreachable.

### In Progress
- [ ] Per-zone send time setting on the admin settings page.

### Blocked
- (none)

## Key Decisions
- **Send schedule**: per-timezone batches, each zone at 08:00 local, reusing the 15-minute scheduler; the single midnight-UTC send was rejected.

## Next Steps
1. Add the per-zone send time to the admin settings page.
2. Point the smoke test at mailpit.

## Critical Context
- Batches of 500 recipients per SMTP pool call.""",
        "bad": """## Goal
Improve the newsletter.

## Progress
### Done
- [x] Looked at the sender code and ran some commands.

### In Progress
- [ ] Scheduling changes.

## Key Decisions
- Keep sending the digest at 00:00 UTC for everyone.

## Next Steps
1. Continue.""",
    },
    {
        "name": "stockroom",
        "cwd": "/home/dev/stockroom",
        "events": [
            (
                "user",
                "Stock counts drift after returns. Should the return flow adjust the count in the view, "
                "or should we move that into a signal handler?",
            ),
            ("say", "Let me look at where returns are handled before answering."),
            (
                "tool",
                "read",
                "inventory/returns.py",
                "def process_return(line, rma):\n    validate_rma(rma)\n    StockItem.objects.filter(sku=line.sku)"
                ".update(count=F('count') + line.qty)\n",
                False,
            ),
            (
                "say",
                "inventory/returns.py is where a refund becomes a restock: it validates the RMA number, then puts "
                "the returned quantity back on the shelf count.",
            ),
            ("tool", "bash", "ls -la fixtures/", listing("fixture"), False),
            ("user", "Run the inventory tests so we know where we stand."),
            (
                "tool",
                "bash",
                "python manage.py test inventory",
                "django.db.utils.OperationalError: could not connect to server: Connection refused\n"
                '\tIs the server running on host "db" (10.4.0.2) and accepting TCP/IP connections on port 5432?',
                True,
            ),
            (
                "say",
                "The default settings point at the shared Postgres on host db, which this sandbox has no route to; "
                "the tests have to run with settings_test.py (SQLite) here.",
            ),
            ("user", "How many SKUs are we talking about, roughly?"),
            ("tool", "bash", "sqlite3 data/snapshot.db 'select count(*) from stock_item'", "18342", False),
            ("say", "That comes from last night's snapshot."),
            (
                "user",
                "Would you mind not renaming anything in the public API module while you're in there? "
                "The mobile app pins those names.",
            ),
            ("user", "and the signal idea?"),
            (
                "say",
                "A post_save signal fires on every StockItem save, the nightly import included, which is exactly "
                "where double counting would come from. Keeping the adjustment in the view, inside "
                "select_for_update, is the safer of the two.",
            ),
            ("user", "Go with your recommendation and add a regression test for a double return."),
        ],
        "facts": {
            "concluded": (
                [r"select_for_update"],
                [r"(move|moved|moving|put|putting)[^.\n]{0,40}into a signal handler"],
            ),
            "learnt": (
                [
                    r"(postgres|database|\bdb\b)[^.\n]{0,60}(unreachable|no route|not reachable|cannot reach|"
                    r"can'?t reach|cannot connect|can'?t connect)|(no route|cannot reach|can'?t reach|"
                    r"cannot connect|can'?t connect)[^.\n]{0,40}(postgres|database|\bdb\b)",
                    r"settings_test|sqlite",
                ],
                [],
            ),
            "measured": ([r"18[, ]?342|18\.3 ?k"], []),
            "asked": (
                [
                    r"(no|not|don'?t|never|avoid|without)[^.\n]{0,40}renam|renam\w*[^.\n]{0,40}"
                    r"(off-limits|forbidden|not allowed)",
                    r"api",
                ],
                [],
            ),
            "role": ([r"returns\.py", r"rma|restock|shelf count"], []),
            "request": ([r"regression test", r"double return|returned twice|two returns"], []),
        },
        "good": """## Goal
Stop stock counts drifting after returns.

## Constraints & Preferences
- Do not rename anything in the public API module: the mobile app pins those names.
- The shared Postgres (host db) is unreachable from this sandbox; run tests with settings_test.py (SQLite).

## Progress
### Done
- [x] inventory/returns.py: turns a refund into a restock (validates the RMA number, adds the quantity back to the shelf count).
- [x] SKU count from last night's snapshot: 18,342.

### In Progress
- [ ] Stock adjustment for returns in the view.

### Blocked
- (none)

## Key Decisions
- **Where the count is adjusted**: in the view, inside select_for_update. A post_save signal was rejected: it fires on every save, the nightly import included, and would double count.

## Next Steps
1. Apply the view change.
2. Add a regression test for a double return.

## Critical Context
- `python manage.py test inventory` fails with the default settings (OperationalError, port 5432).""",
        "bad": """## Goal
Fix inventory bugs.

## Progress
### Done
- [x] Investigated returns.

### In Progress
- [ ] Refactoring.

## Key Decisions
- Move the count adjustment into a signal handler.

## Next Steps
1. Keep going.""",
    },
    {
        "name": "sensorboard",
        "cwd": "/home/dev/sensorboard",
        "events": [
            ("user", "The humidity readings spike every few minutes. Is it the I2C bus or the sensor itself?"),
            ("say", "It could be either. I'll check the driver and the bus timing."),
            (
                "tool",
                "read",
                "drivers/sht4x.c",
                "int sht4x_read(struct sht4x *dev, int32_t *rh) {\n  i2c_write(dev->bus, CMD_MEASURE_HIGH);\n"
                "  k_sleep(K_MSEC(9));\n  if (!crc8_ok(buf)) return -EIO;\n  ...\n}\n",
                False,
            ),
            (
                "say",
                "drivers/sht4x.c owns the humidity sensor: it triggers a high-precision measurement, waits 9 ms and "
                "checks the CRC before handing the value to the sampler.",
            ),
            ("user", "What sample rate are we running at right now?"),
            ("tool", "bash", "grep -n SAMPLE_HZ include/config.h", "12:#define SAMPLE_HZ 25", False),
            ("say", "It is set in the board's config header."),
            ("user", "Can we keep the average current under 2 mA while you change things? It runs on a coin cell."),
            ("tool", "bash", "make test-hw", "flash: error: no ST-LINK detected\nmake: *** [test-hw] Error 1", True),
            (
                "say",
                "There is no debug probe attached to this machine, so the hardware-in-the-loop tests cannot run "
                "here; only the host unit tests (make test-host) can.",
            ),
            ("tool", "bash", "ls -la logs/", listing("run"), False),
            ("user", "so which is it, bus or sensor?"),
            (
                "say",
                "The bus. The spikes only happen while the flash logger holds I2C1 for a page write, the sensor read "
                "times out and the stale buffer is returned. Fix: give the flash logger its own bus, I2C2, rather "
                "than retrying the reads.",
            ),
            ("user", "Do the bus move, then measure the spike rate again."),
        ],
        "facts": {
            "concluded": (
                [r"i2c2|own bus|separate bus|second (i2c )?(bus|controller)"],
                [r"(decided|decision|plan|chose|going)[^.\n]{0,30}(add|adding) retries"],
            ),
            "learnt": (
                [
                    r"(no|without|missing)[^.\n]{0,30}(st-?link|debug probe|probe)|(st-?link|probe)[^.\n]{0,30}"
                    r"(not (attached|connected|detected|available)|missing)",
                    r"test-host|host(-side)? (unit )?tests",
                ],
                [],
            ),
            "measured": ([r"25 ?hz|sample_hz[^.\n]{0,12}25|\b25 samples"], []),
            "asked": ([r"2 ?ma"], []),
            "role": ([r"sht4x\.c", r"crc"], []),
            "request": ([r"spike", r"(measure|check)\w*[^.\n]{0,40}again|re-?measure"], []),
        },
        "good": """## Goal
Find and fix the periodic spikes in the humidity readings.

## Constraints & Preferences
- Keep the average current under 2 mA (coin cell).
- No ST-LINK debug probe on this machine: hardware-in-the-loop tests (make test-hw) cannot run here; use make test-host.

## Progress
### Done
- [x] drivers/sht4x.c: the SHT4x driver; triggers a high-precision measurement, waits 9 ms, checks the CRC, then passes the value to the sampler.
- [x] Sample rate: SAMPLE_HZ 25 (include/config.h).
- [x] Cause found: the flash logger holds I2C1 during page writes, the sensor read times out and returns a stale buffer.

### In Progress
- [ ] Moving the flash logger to its own bus.

### Blocked
- (none)

## Key Decisions
- **Fix**: put the flash logger on I2C2 instead of retrying sensor reads.

## Next Steps
1. Move the flash logger to I2C2.
2. Measure the spike rate again afterwards.

## Critical Context
- (none)""",
        "bad": """## Goal
Sensor problems.

## Progress
### Done
- [x] Read the driver.

### In Progress
- [ ] Bus work.

## Key Decisions
- Decided to add retries to the sensor reads.

## Next Steps
1. Finish.""",
    },
    {
        "name": "metrics",
        "cwd": "/home/dev/metrics",
        "events": [
            (
                "user",
                "The revenue dashboard and the finance export disagree for October. "
                "Do we fix the dbt model or the dashboard query?",
            ),
            ("say", "Let me compare the two before deciding."),
            (
                "tool",
                "read",
                "models/marts/fct_revenue.sql",
                "select o.order_id, o.amount * fx.rate as amount_eur\nfrom {{ ref('stg_orders') }} o\n"
                "join {{ ref('fx_daily') }} fx on fx.day = o.ordered_on\nwhere not o.refunded\n",
                False,
            ),
            (
                "say",
                "models/marts/fct_revenue.sql is the mart both of them read: it converts every order to EUR at that "
                "day's exchange rate and leaves refunded orders out.",
            ),
            ("user", "Could you not add new columns to fct_revenue? Three other teams select * from it."),
            (
                "tool",
                "bash",
                "dbt run --select fct_revenue --target prod",
                "Database Error in model fct_revenue\n  permission denied for schema analytics_prod\n"
                "  (role dbt_dev has no write access)",
                True,
            ),
            (
                "say",
                "Our dbt role is read-only on prod, so any change goes through the dev target and a pull request; "
                "the nightly job deploys it.",
            ),
            ("user", "How big is the gap?"),
            (
                "tool",
                "bash",
                "dbt show --inline \"select sum(dash - fin) as gap_eur from {{ ref('oct_compare') }}\"",
                "| gap_eur   |\n| --------- |\n| 41,870.25 |",
                False,
            ),
            ("say", "That is October's gap, in euros."),
            ("tool", "bash", "ls -la models/staging/", listing("stg"), False),
            ("user", "so, the model or the dashboard?"),
            (
                "say",
                "The dashboard. It converts with the month-end rate while fct_revenue uses each day's rate, and "
                "finance uses the daily one too, so the dashboard query should read amount_eur from the mart "
                "instead of converting on its own.",
            ),
            ("user", "Change the dashboard query accordingly and add a test comparing it with the finance export."),
        ],
        "facts": {
            "concluded": (
                [r"month-end|amount_eur"],
                [r"(fix|change|patch)\w*[^.\n]{0,20}(fct_revenue|the model|the mart)\b"],
            ),
            "learnt": (
                [
                    r"(read-only|no write access|can'?t write|cannot write|permission denied)[^.\n]{0,40}prod"
                    r"|prod[^.\n]{0,40}(read-only|no write|can'?t write|cannot write)",
                    r"dev target|target dev|pull request|\bpr\b",
                ],
                [],
            ),
            "measured": ([r"41[, ]?870|41\.87 ?k|41\.9 ?k"], []),
            "asked": (
                [
                    r"(no|not|don'?t|never|without)[^.\n]{0,30}(new )?columns?|columns?[^.\n]{0,30}"
                    r"(unchanged|frozen|as is)",
                ],
                [],
            ),
            "role": ([r"fct_revenue\.sql", r"eur|exchange rate|refund"], []),
            "request": ([r"test", r"finance export"], []),
        },
        "good": """## Goal
Reconcile October revenue between the dashboard and the finance export.

## Constraints & Preferences
- No new columns in fct_revenue: three other teams select * from it.
- Our dbt role (dbt_dev) is read-only on prod: changes go through the dev target and a pull request, the nightly job deploys them.

## Progress
### Done
- [x] models/marts/fct_revenue.sql: the mart both read; converts each order to EUR at that day's rate and excludes refunded orders.
- [x] October gap: 41,870.25 EUR.

### In Progress
- [ ] Changing the dashboard query.

### Blocked
- (none)

## Key Decisions
- **Where the bug is**: the dashboard, which converts with the month-end rate; it should read amount_eur from the mart (daily rates, as finance uses).

## Next Steps
1. Rewrite the dashboard query to use amount_eur.
2. Add a test comparing it with the finance export.

## Critical Context
- (none)""",
        "bad": """## Goal
Revenue numbers.

## Progress
### Done
- [x] Looked at the models.

### In Progress
- [ ] Reconciliation.

## Key Decisions
- Fix fct_revenue so the numbers match.

## Next Steps
1. Continue.""",
    },
]


TUNE: list[Case] = [
    {
        "name": "shopsearch",
        "cwd": "/home/dev/shopsearch",
        "events": [
            ("user", "Search results for 'usb c' miss half the cables. Synonyms file or a custom analyzer, which one?"),
            ("say", "Let me see the current mapping first."),
            (
                "tool",
                "read",
                "search/mappings/products.json",
                '{"properties": {"title": {"type": "text", "analyzer": "standard"},\n'
                ' "description": {"type": "text", "analyzer": "standard"}}}',
                False,
            ),
            (
                "say",
                "search/mappings/products.json defines the products index: title and description both go through "
                "the standard analyzer, with no synonym filter anywhere.",
            ),
            ("user", "Can you avoid reindexing during business hours? It takes the shop search down."),
            (
                "tool",
                "bash",
                "curl -s localhost:9200/products/_count",
                '{"count":1284507,"_shards":{"total":5}}',
                False,
            ),
            ("say", "That is the size of the index as it stands."),
            ("tool", "bash", "ls -la search/", listing("query"), False),
            (
                "tool",
                "bash",
                "pip install elasticsearch-dsl",
                "ERROR: Could not find a version that satisfies the requirement elasticsearch-dsl (from versions: none)\n"
                "ERROR: No matching distribution found for elasticsearch-dsl",
                True,
            ),
            (
                "say",
                "This box has no access to the package index, so we can only use what is already in the "
                "virtualenv: no new dependencies.",
            ),
            ("user", "and which approach then?"),
            (
                "say",
                "A synonym graph filter applied at search time, with 'usb c', 'usb-c' and 'type-c' as one entry. It "
                "needs no reindex, where a custom index analyzer would need a full one.",
            ),
            ("user", "Add the synonym entry and a test query for 'usb c'."),
        ],
        "facts": {
            "concluded": (
                [r"synonym", r"search[- ]time|query[- ]time|no reindex|without (a )?(full )?reindex"],
                [r"(decided|decision|going|chose)[^.\n]{0,30}custom (index )?analy[sz]er"],
            ),
            "learnt": ([r"no new dependenc|(can'?t|cannot) (install|add)|no (access to the )?package index"], []),
            "measured": ([r"1[, ]?284[, ]?507|1\.28 ?m"], []),
            "asked": ([r"reindex", r"business hours|office hours|during the day"], []),
            "role": ([r"products\.json", r"standard analy[sz]er|no synonym filter"], []),
            "request": ([r"(add|adding)[^.\n]{0,20}synonym", r"test query|test[^.\n]{0,20}usb"], []),
        },
        "good": """## Goal
Make search for "usb c" find all the USB-C cables.

## Constraints & Preferences
- No reindexing during business hours (it takes shop search down).
- No package index access on this box: no new dependencies, only what is in the virtualenv.

## Progress
### Done
- [x] search/mappings/products.json: the products index mapping; title and description use the standard analyzer, no synonym filter.
- [x] Index size: 1,284,507 documents.

### In Progress
- [ ] Search-time synonyms.

### Blocked
- (none)

## Key Decisions
- **Approach**: a synonym graph filter at search time ('usb c', 'usb-c', 'type-c'), which needs no reindex; a custom index analyzer was rejected because it needs a full reindex.

## Next Steps
1. Add the synonym entry.
2. Add a test query for 'usb c'.

## Critical Context
- `pip install elasticsearch-dsl` fails: no matching distribution.""",
        "bad": """## Goal
Better search.

## Progress
### Done
- [x] Checked the index.

## Key Decisions
- Decided to write a custom analyzer.

## Next Steps
1. More work on search.""",
    },
    {
        "name": "fieldapp",
        "cwd": "/home/dev/fieldapp",
        "events": [
            (
                "user",
                "Offline edits sometimes vanish after a sync. Last-write-wins, or keep both versions and let the "
                "user pick?",
            ),
            ("say", "Let me check how sync resolves conflicts today."),
            (
                "tool",
                "read",
                "src/sync/merge.ts",
                "export function merge(local: Rec, remote: Rec): Rec {\n"
                "  return local.updatedAt > remote.updatedAt ? local : remote;\n}\n",
                False,
            ),
            (
                "say",
                "src/sync/merge.ts decides which copy of a record survives a sync: it compares updatedAt and keeps "
                "the newer one without telling anybody.",
            ),
            ("user", "Could we stay on React Native 0.72 for now? The release branch is frozen."),
            (
                "tool",
                "bash",
                "npx jest src/sync",
                "FAIL src/sync/merge.test.ts\n  merges offline edits\n    Device clock skew: expected updatedAt "
                "2026-11-24T10:00:00Z to be after 2026-11-24T10:03:12Z",
                True,
            ),
            (
                "say",
                "The phones' clocks cannot be trusted: the test device runs three minutes behind the server, so "
                "comparing timestamps taken on devices is unsafe.",
            ),
            ("user", "how many conflicts did we log last week?"),
            ("tool", "bash", "grep -c CONFLICT logs/sync-2026-w47.log", "327", False),
            ("say", "That is from last week's sync log."),
            ("tool", "bash", "ls -la src/screens/", listing("screen"), False),
            ("user", "ok what do you recommend then"),
            (
                "say",
                "Keep both versions and let the user pick. With clocks this unreliable, last-write-wins would keep "
                "dropping edits, and a conflict screen costs one extra view.",
            ),
            ("user", "Build the conflict screen, with the two versions side by side."),
        ],
        "facts": {
            "concluded": (
                [r"(keep|keeping|keeps) both|let the user (pick|choose)"],
                [r"\b(decided|decision|chose|going with|use|using)\b[^.\n]{0,20}last[- ]write[- ]wins"],
            ),
            "learnt": ([r"clock", r"(can'?t|cannot|not) (be )?trust|unreliable|skew|behind"], []),
            "measured": ([r"\b327\b"], []),
            "asked": ([r"0\.72"], []),
            "role": ([r"merge\.ts", r"updatedat|newer|which copy"], []),
            "request": ([r"conflict screen", r"side by side"], []),
        },
        "good": """## Goal
Stop offline edits from vanishing after sync.

## Constraints & Preferences
- Stay on React Native 0.72 (the release branch is frozen).
- Device clocks are unreliable (the test device is 3 minutes behind the server): never compare device timestamps to pick a winner.

## Progress
### Done
- [x] src/sync/merge.ts: picks the surviving copy by comparing updatedAt, silently keeping the newer one.
- [x] Conflicts logged last week: 327.

### In Progress
- [ ] Conflict screen.

### Blocked
- (none)

## Key Decisions
- **Conflicts**: keep both versions and let the user pick; last-write-wins rejected because of clock skew.

## Next Steps
1. Build the conflict screen with the two versions side by side.

## Critical Context
- `npx jest src/sync` fails on clock skew (expected updatedAt 10:00:00Z after 10:03:12Z).""",
        "bad": """## Goal
Sync issues.

## Progress
### Done
- [x] Ran tests.

## Key Decisions
- Using last-write-wins for conflicts.

## Next Steps
1. Continue.""",
    },
    {
        "name": "ledger",
        "cwd": "/home/dev/ledger",
        "events": [
            ("user", "Month-end close takes forever. Is it the reconciliation query or the PDF rendering?"),
            ("say", "I'll profile both."),
            (
                "tool",
                "read",
                "close/reconcile.py",
                "def reconcile(lines):\n    for line in lines:\n        inv = db.one('select * from invoices where "
                "amount = %s and due = %s', line.amount, line.day)\n        pair(line, inv)\n",
                False,
            ),
            (
                "say",
                "close/reconcile.py pairs every bank line with an open invoice by amount and date, one query per line.",
            ),
            (
                "tool",
                "bash",
                "python -m cProfile -s cumtime close/run.py | head -5",
                "   ncalls  tottime  cumtime filename:lineno(function)\n        1    0.001  812.4 run.py:1(<module>)\n"
                "    48211    2.300  771.9 reconcile.py:40(match_line)\n        1    0.200   38.1 render.py:12(render_pdf)",
                False,
            ),
            ("say", "There it is."),
            (
                "user",
                "Please don't change the rounding of the invoice totals, could you? Auditors compare them to the cent.",
            ),
            ("tool", "bash", "ls -la close/", listing("close"), False),
            ("user", "So what's the fix?"),
            (
                "say",
                "Batch the matching: load the month's open invoices once into a dict keyed by amount and date, and "
                "match in memory. The PDF side is a small part of the total and can wait.",
            ),
            (
                "tool",
                "bash",
                "psql \"$LEDGER_DB\" -c 'create index on invoices (amount, due)'",
                "ERROR:  permission denied for table invoices\nHINT:  the ledger_ro role is read-only",
                True,
            ),
            (
                "say",
                "We only have a read-only database role, so no new indexes: the speedup has to come from the "
                "application side.",
            ),
            ("user", "Implement the batched matching, then time the close again."),
        ],
        "facts": {
            "concluded": (
                [r"batch|in memory|load[^.\n]{0,40}once"],
                [r"(start with|focus on|fix)[^.\n]{0,20}(the )?pdf"],
            ),
            "learnt": ([r"read-only", r"index|application side|role"], []),
            "measured": ([r"771\.9|772 ?s|771 ?s|12\.9 ?min|13 ?min"], []),
            "asked": (
                [r"rounding", r"(don'?t|do not|not|never|no)[^.\n]{0,30}(change|touch)|unchanged|as is"],
                [],
            ),
            "role": ([r"reconcile\.py", r"bank line|invoice"], []),
            "request": ([r"(time|measure|profile)\w*[^.\n]{0,30}(close|again)"], []),
        },
        "good": """## Goal
Speed up the month-end close.

## Constraints & Preferences
- Do not change the rounding of invoice totals (auditors compare them to the cent).
- The database role (ledger_ro) is read-only: no new indexes, the speedup must come from the application side.

## Progress
### Done
- [x] close/reconcile.py: pairs each bank line with an open invoice by amount and date, one query per line.
- [x] Profiled the close: 812.4 s in all, 771.9 s in match_line (48,211 calls), 38.1 s rendering PDFs.

### In Progress
- [ ] Batched matching.

### Blocked
- (none)

## Key Decisions
- **Fix**: load the month's open invoices once into a dict keyed by amount and date and match in memory; the PDF rendering can wait.

## Next Steps
1. Implement the batched matching.
2. Time the close again.

## Critical Context
- `create index on invoices` fails: permission denied.""",
        "bad": """## Goal
Close is slow.

## Progress
### Done
- [x] Profiling.

## Key Decisions
- Focus on the PDF rendering first.

## Next Steps
1. Continue.""",
    },
    {
        "name": "handbook",
        "cwd": "/home/dev/handbook",
        "events": [
            (
                "user",
                "The docs build is slow and the search is bad. Should we move from MkDocs to Docusaurus, or tune "
                "what we have?",
            ),
            ("say", "Let me see what the build spends its time on."),
            (
                "tool",
                "bash",
                "mkdocs build --verbose 2>&1 | tail -3",
                "INFO    -  Cleaning site directory\nINFO    -  Building documentation to directory: site\n"
                "INFO    -  Documentation built in 214.37 seconds",
                False,
            ),
            ("say", "That is the full build."),
            (
                "tool",
                "read",
                "mkdocs.yml",
                "site_name: Handbook\ntheme: material\nplugins:\n  - search\n  - git-revision-date-localized\n"
                "  - redirects\n  - macros\nnav:\n  - Home: index.md\n",
                False,
            ),
            (
                "say",
                "mkdocs.yml is the whole site's configuration: the nav tree, the theme and four plugins, one of "
                "which (git-revision-date-localized) runs git log for every page.",
            ),
            ("user", "Can you keep all the existing URLs working? Support links to them from tickets."),
            (
                "tool",
                "bash",
                "git log -1 --format=%cd",
                "fatal: not a git repository (or any of the parent directories): .git",
                True,
            ),
            (
                "say",
                "The CI image builds from an export without the .git folder, so anything that depends on git history "
                "cannot work there.",
            ),
            ("tool", "bash", "ls -la docs/", listing("page"), False),
            ("user", "Right. So, migrate or tune?"),
            (
                "say",
                "Tune MkDocs: drop the revision-date plugin and prebuild the search index. Moving to Docusaurus "
                "means rewriting 400 pages of admonitions for a problem one plugin causes.",
            ),
            ("user", "Remove the plugin and set up the search prebuild."),
        ],
        "facts": {
            "concluded": (
                [r"(stay|tune|keep)\w*[^.\n]{0,20}mkdocs|mkdocs[^.\n]{0,30}(stay|tun|kept)"],
                [r"(decided|decision|going|chose)[^.\n]{0,20}(migrat|mov)\w*[^.\n]{0,15}docusaurus"],
            ),
            "learnt": (
                [
                    r"(without|no|missing)[^.\n]{0,30}(\.git|git history)|(\.git|git history)[^.\n]{0,30}(missing|absent)"
                ],
                [],
            ),
            "measured": ([r"214(\.37)? ?s|214(\.37)? seconds|3\.6 ?min"], []),
            "asked": ([r"url", r"keep|working|redirect|break|stable"], []),
            "role": ([r"mkdocs\.yml", r"nav|plugins"], []),
            "request": ([r"prebuil|pre-buil", r"remov|drop"], []),
        },
        "good": """## Goal
Make the docs build faster and the search better.

## Constraints & Preferences
- Keep every existing URL working (support links to them from tickets).
- The CI image builds from an export without the .git folder: nothing may depend on git history.

## Progress
### Done
- [x] Full build takes 214.37 s.
- [x] mkdocs.yml: the site configuration (nav, material theme, four plugins); git-revision-date-localized runs git log per page.

### In Progress
- [ ] Removing the revision-date plugin.

### Blocked
- (none)

## Key Decisions
- **Stay on MkDocs and tune it**: drop the revision-date plugin, prebuild the search index. Docusaurus rejected (400 pages of admonitions to rewrite).

## Next Steps
1. Remove the plugin.
2. Set up the search prebuild.

## Critical Context
- `git log` fails in CI: not a git repository.""",
        "bad": """## Goal
Docs work.

## Progress
### Done
- [x] Built the docs.

## Key Decisions
- Decided to migrate the site to Docusaurus.

## Next Steps
1. Continue.""",
    },
    {
        "name": "trainer",
        "cwd": "/home/dev/trainer",
        "events": [
            ("user", "Training diverges after epoch 3. Lower the learning rate, or add gradient clipping?"),
            ("say", "First the config and the gradients."),
            (
                "tool",
                "read",
                "configs/base.yaml",
                "optimizer: adamw\nlr: 3.0e-4\nwarmup_steps: 0\nbatch_size: 512\nepochs: 20\n",
                False,
            ),
            (
                "say",
                "configs/base.yaml is what every run inherits: optimizer, learning-rate schedule and batch size; "
                "the experiment configs only override keys.",
            ),
            ("tool", "bash", "python tools/gradnorm.py runs/r17 --epoch 3", "max grad norm: 913.6 at step 4120", False),
            ("say", "That is what the gradients look like at the blow-up."),
            ("user", "Could you stick to the 4 GPUs we have on node b? The others are booked for the eval sweep."),
            (
                "tool",
                "bash",
                "python train.py --config configs/base.yaml --fp16",
                "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
                "(fused adam with fp16 requires sm_80; found sm_70)",
                True,
            ),
            (
                "say",
                "Node b has V100s (sm_70), so the fused mixed-precision optimizer is not available there; runs on it "
                "have to use fp32 or the unfused AdamW.",
            ),
            ("tool", "bash", "ls -la runs/", listing("ckpt"), False),
            ("user", "ok, so which fix?"),
            (
                "say",
                "Clipping at norm 1.0 plus a 2,000-step warmup. Lowering the rate alone would slow every epoch for "
                "a spike that only comes once the norm explodes.",
            ),
            ("user", "Add clipping and the warmup to base.yaml and start a run on node b."),
        ],
        "facts": {
            "concluded": (
                [r"clip", r"warm-?up"],
                [r"(decided|decision|chose|going)[^.\n]{0,30}lower\w* the (learning )?rate"],
            ),
            "learnt": ([r"v100|sm_70", r"fp32|unfused|(no|not|without)[^.\n]{0,30}fused"], []),
            "measured": ([r"913(\.6)?"], []),
            "asked": ([r"4 gpus|four gpus", r"node b"], []),
            "role": ([r"base\.yaml", r"inherit|every run|overrid"], []),
            "request": ([r"(start|launch|kick off)\w*[^.\n]{0,20}run"], []),
        },
        "good": """## Goal
Stop training from diverging after epoch 3.

## Constraints & Preferences
- Use only the 4 GPUs on node b (the others are booked for the eval sweep).
- Node b has V100s (sm_70): no fused fp16 optimizer there; use fp32 or unfused AdamW.

## Progress
### Done
- [x] configs/base.yaml: the base every run inherits (optimizer, LR schedule, batch size); experiment configs only override keys.
- [x] Max grad norm at the blow-up: 913.6 at step 4120.

### In Progress
- [ ] Gradient clipping and warmup.

### Blocked
- (none)

## Key Decisions
- **Fix**: clip gradients at norm 1.0 and add a 2,000-step warmup, rather than lowering the learning rate.

## Next Steps
1. Add clipping and warmup to base.yaml.
2. Start a run on node b.

## Critical Context
- `train.py --fp16` fails: no kernel image for sm_70.""",
        "bad": """## Goal
Fix training.

## Progress
### Done
- [x] Looked at the config.

## Key Decisions
- Decided to lower the learning rate.

## Next Steps
1. Continue.""",
    },
    {
        "name": "tidyup",
        "cwd": "/home/dev/tidyup",
        "events": [
            ("user", "People want tidyup to follow symlinks. Follow by default, or behind a --follow flag?"),
            ("say", "Let me read the walker first."),
            (
                "tool",
                "read",
                "src/walk.rs",
                "pub fn walk(root: &Path, f: &mut dyn FnMut(&Path)) -> io::Result<()> {\n"
                "    for entry in fs::read_dir(root)? {\n        let e = entry?;\n        if hidden(&e) || "
                "other_device(&e) { continue; }\n        ...\n    }\n}\n",
                False,
            ),
            (
                "say",
                "src/walk.rs is the directory walker every subcommand uses; it skips hidden files and never crosses "
                "mount points.",
            ),
            ("user", "Would you please not bump the MSRV? Debian stable ships 1.70."),
            (
                "tool",
                "bash",
                "cargo test walk::cycle",
                "thread 'walk::tests::cycle' has overflowed its stack\nfatal runtime error: stack overflow",
                True,
            ),
            (
                "say",
                "The fixture tree has a symlink loop (a -> ../a) and the walker keeps no visited set, so following "
                "links unconditionally recurses forever on trees like that.",
            ),
            (
                "tool",
                "bash",
                "cargo bench walk",
                "walk/large_tree        time:   [41.237 ms 41.902 ms 42.611 ms]",
                False,
            ),
            ("say", "Baseline recorded."),
            ("tool", "bash", "ls -la tests/fixtures/", listing("tree"), False),
            ("user", "fine. default or flag?"),
            (
                "say",
                "Behind --follow, off by default: following by default would change what existing scripts delete, "
                "and the loops need the visited set either way.",
            ),
            ("user", "Implement --follow with a visited set of inodes."),
        ],
        "facts": {
            "concluded": (
                [r"--follow", r"off by default|opt-in|not (the )?default|default off"],
                [r"(decided|decision|chose|going)[^.\n]{0,30}follow\w* (symlinks )?by default"],
            ),
            "learnt": ([r"loop|cycle", r"recurs|stack overflow|overflow"], []),
            "measured": ([r"41\.9 ?ms|41\.902"], []),
            "asked": ([r"msrv|minimum supported", r"1\.70"], []),
            "role": ([r"walk\.rs", r"walker|every subcommand|mount"], []),
            "request": ([r"implement\w*[^.\n]{0,20}--follow", r"visited|inode"], []),
        },
        "good": """## Goal
Let tidyup follow symlinks.

## Constraints & Preferences
- Do not bump the MSRV: Debian stable ships Rust 1.70.
- Trees can contain symlink loops (the fixture has a -> ../a): following links without a visited set recurses until the stack overflows.

## Progress
### Done
- [x] src/walk.rs: the directory walker every subcommand uses; skips hidden files, never crosses mount points.
- [x] Benchmark baseline: walk/large_tree 41.902 ms.

### In Progress
- [ ] --follow flag.

### Blocked
- (none)

## Key Decisions
- **Symlinks**: behind --follow, off by default (following by default would change what existing scripts delete).

## Next Steps
1. Implement --follow with a visited set of inodes.

## Critical Context
- `cargo test walk::cycle` overflows its stack today.""",
        "bad": """## Goal
Symlinks.

## Progress
### Done
- [x] Read the code.

## Key Decisions
- Decided to follow symlinks by default.

## Next Steps
1. Continue.""",
    },
]
