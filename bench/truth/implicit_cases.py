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
