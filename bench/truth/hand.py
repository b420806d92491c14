"""Summaries judged by hand: written the way a model writes them (not assembled from the catalogue's lines).

Eleven are on tune sessions (to look at while developing), eight on held-out sessions
(looked at only as figures). Some carry a `role`: "good" (a thorough model summary that
keeps every planted fact, truly better than the offline one) or "bad" (deliberately poor),
for the check that the audit ranks good > offline > bad (bench_audit_truth `between`).

Each one stands in for the summary of its session's compaction under test; `verdicts`
are my own reading, fact by fact (kept / lost / contradicted), independent of the
regex judges. The tests/fixtures/corpus summaries were written by a fake model ("FAKE
SUMMARY #k"), so there is no real model-written summary in the repository to add here.
"""

from __future__ import annotations

from typing import Any

HAND: list[dict[str, Any]] = [
    {
        "split": "tune",
        "session": "tune-00-pi-billing",
        "label": "a careful model, pi checkpoint",
        "summary": """## Goal
Make the Stripe webhook handler idempotent, keyed on the event id.

## Constraints & Preferences
- Do not write the Authorization header to logs.
- Code style: black (per repo config); the tabs request was withdrawn.

## Progress
### Done
- [x] Fixed the off-by-one-cent refund rounding (test_rounding) using ROUND_HALF_EVEN.
- [x] Reviewed the retry module (retry.py) and the backoff helper.

### In Progress
- [ ] Webhook idempotency

### Blocked
- (none)

## Key Decisions
- **Locking**: the refund job uses a Postgres advisory lock rather than Redis.

## Next Steps
1. Regression test for partial refunds.

## Critical Context
- Nightly export batch size: 500 rows.
- Staging DB: db-stg-02.internal.""",
        "verdicts": {
            "path": "kept",
            "name": "lost",
            "number": "kept",
            "error": "kept",
            "constraint": "kept",
            "preference": "kept",
            "decision": "kept",
            "todo": "kept",
            "request": "kept",
            "previous": "kept",
        },
        "notes": {"path": "retry.py only: partly kept", "name": "\u201cthe backoff helper\u201d, not its name"},
    },
    {
        "split": "tune",
        "session": "tune-06-claude_code-geo-tiles",
        "label": "a hasty model, Claude Code's nine sections",
        "summary": """This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.

Summary:
1. Primary Request and Intent:
   The user wants a --bbox option on the tile build command.
2. Key Technical Concepts:
   - Vector tiles (MVT), PMTiles archives
   - Tile cache TTL of 30 days
3. Files and Code Sections:
   - tiler/render/mvt_encoder.py: tile encoding
4. Errors and fixes:
   - Building zoom 14 ran out of memory (MemoryError); fixed.
5. Problem Solving:
   Memory use at high zoom levels.
6. All user messages:
   - "I prefer GeoJSON fixtures over shapefiles in tests."
   - "Please add a --bbox flag to the build command."
7. Pending Tasks:
   - Document the tile URL scheme (docs/tiles.md)
8. Current Work:
   Adding --bbox.
9. Optional Next Step:
   Implement --bbox.""",
        "verdicts": {
            "path": "kept",
            "name": "lost",
            "number": "contradicted",
            "error": "contradicted",
            "constraint": "lost",
            "preference": "kept",
            "decision": "kept",
            "todo": "kept",
            "request": "kept",
            "previous": "lost",
        },
        "notes": {"number": "30 days for 90", "error": "the MemoryError was never fixed"},
    },
    {
        "split": "tune",
        "session": "tune-11-codex-chatbot",
        "label": "a weak model, Codex handoff",
        "summary": """Handoff: support chatbot.
- Prompt lives in src/prompts/system_prompt.txt; history trimming is in ConversationBuffer.
- Fixed a crash in parseReply when the model returned no choices.
- Use pnpm for installs.
- Streaming uses WebSockets.
- Free tier: 20 requests/minute.
- Next: add retries with jitter to the OpenAI client; rotate the OpenAI key in .env.local.""",
        "verdicts": {
            "path": "kept",
            "name": "lost",
            "number": "lost",
            "error": "kept",
            "constraint": "lost",
            "preference": "contradicted",
            "decision": "contradicted",
            "todo": "kept",
            "request": "kept",
            "previous": "kept",
        },
        "notes": {"preference": "pnpm restated though the user took it back", "decision": "SSE was chosen"},
    },
    {
        "split": "heldout",
        "session": "heldout-16-pi-shopfront",
        "label": "a careful model, pi checkpoint",
        "summary": """## Goal
Show the VAT line in the cart only when the shipping address is inside the EU.

## Constraints & Preferences
- Payment provider calls happen server-side only; never from the browser.
- Styling: Tailwind is fine (the user dropped the earlier CSS-modules preference).
- Uploaded images larger than 2 MB are rejected.

## Progress
### Done
- [x] Fixed the TS2345 build error (a string quantity passed as a number) by parsing with Number().

### In Progress
- [ ] VAT line for EU addresses

### Blocked
- (none)

## Key Decisions
- **Cart storage**: kept in the server session instead of localStorage.

## Next Steps
1. Implement the EU check for the VAT line in CartTotals.tsx.
2. Add an e2e test for the coupon flow.

## Critical Context
- Money is formatted with `formatMoney` (shared utils).
- Feature flags: config/flags.yaml.""",
        "verdicts": {
            "path": "kept",
            "name": "kept",
            "number": "kept",
            "error": "kept",
            "constraint": "kept",
            "preference": "kept",
            "decision": "kept",
            "todo": "kept",
            "request": "kept",
            "previous": "kept",
        },
        "notes": {"path": "only the file name CartTotals.tsx: partly kept, findable; judged kept"},
    },
    {
        "split": "heldout",
        "session": "heldout-18-claude_code-shopfront",
        "label": "a hasty model, Claude Code's nine sections",
        "summary": """This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.

Summary:
1. Primary Request and Intent:
   The user is fixing the cart totals in the web shop and most recently asked to show VAT only for EU shipping addresses.
2. Key Technical Concepts:
   - React/TypeScript storefront; the `formatMoney` helper formats prices
   - The cart is kept in localStorage for speed
3. Files and Code Sections:
   - web/src/cart/CartTotals.tsx: where the totals bug is
4. Errors and fixes:
   - pnpm build failed on a type error; fixed.
5. Problem Solving:
   The build is green again.
6. All user messages:
   - "Never call the payment provider from the browser."
   - "Images over 2 MB must be rejected at upload."
   - "TODO: add an e2e test for the coupon flow."
   - "Now show the VAT line only for EU shipping addresses."
7. Pending Tasks:
   - e2e test for the coupon flow
8. Current Work:
   The VAT line.
9. Optional Next Step:
   Implement the EU check.

Please continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.""",
        "verdicts": {
            "path": "kept",
            "name": "kept",
            "number": "kept",
            "error": "lost",
            "constraint": "kept",
            "preference": "lost",
            "decision": "contradicted",
            "todo": "kept",
            "request": "kept",
            "previous": "lost",
        },
        "notes": {
            "error": "says a type error was fixed, not which (TS2345)",
            "preference": "neither the CSS-modules wish nor its withdrawal",
            "decision": "localStorage is the rejected alternative",
        },
    },
    {
        "split": "heldout",
        "session": "heldout-21-openclaw-ingest",
        "label": "a model with slips, OpenClaw's sections",
        "summary": """## Decisions
- Dedupe uses a bloom filter (an exact hash set was rejected).

## Open TODOs
- Export the dedupe hit rate to Prometheus.

## Constraints/Rules
- Workers: memory limit 512 MiB each.
- Scale out once the backlog passes 1000 messages.

## Pending user asks
- Make the batch window configurable (environment variable).

## Exact identifiers
- pipeline/stages/dedupe.rs
- RecordKey::from_envelope
- topic ingest.events.v2

## Tool Failures
- cargo test: the dedupe window test panics (index out of bounds), not fixed.""",
        "verdicts": {
            "path": "kept",
            "name": "kept",
            "number": "kept",
            "error": "kept",
            "constraint": "contradicted",
            "preference": "lost",
            "decision": "kept",
            "todo": "kept",
            "request": "lost",
            "previous": "kept",
        },
        "notes": {
            "constraint": "1000 instead of 10000 messages",
            "request": "the variable's name INGEST_WINDOW_MS is what was asked for",
        },
    },
    {
        "split": "heldout",
        "session": "heldout-23-codex-ingest",
        "label": "a weak model, Codex handoff",
        "summary": """Handoff: ingest pipeline.
- Worked on dedupe in pipeline/stages/dedupe.rs; records are keyed by RecordKey::from_payload.
- Decided on an exact hash set for dedupe.
- Tests pass now.
- The user prefers tracing spans to println debugging.
- Next: make the batch window configurable via INGEST_WINDOW_MS.""",
        "verdicts": {
            "path": "kept",
            "name": "contradicted",
            "number": "lost",
            "error": "contradicted",
            "constraint": "lost",
            "preference": "kept",
            "decision": "contradicted",
            "todo": "lost",
            "request": "kept",
            "previous": "lost",
        },
        "notes": {"error": "claims the tests pass; the panic was never fixed"},
    },
]

# --- added later: a thorough model summary and a deliberately bad one on both sides (tune and held out), for the
# ranking (a model summary truly better than the offline one, a bad one truly worse), and one more with slips.
_ALL_KEPT = dict.fromkeys(
    ("path", "name", "number", "error", "constraint", "preference", "decision", "todo", "request", "previous"), "kept"
)

HAND += [
    {
        "split": "tune",
        "session": "tune-04-pi-geo-tiles",
        "label": "a thorough model, pi checkpoint (good)",
        "role": "good",
        "summary": """## Goal
Add a `--bbox` option to the tile build command (the user's latest request).

## Constraints & Preferences
- Any migration that touches over three tables (more than 3) needs the user's OK before it is run.
- Test fixtures should be GeoJSON, not shapefiles (user preference).
- Pushes go to origin only; never push to the upstream remote.

## Progress
### Done
- [x] Located tile encoding: tiler/render/mvt_encoder.py.
- [x] Chose the archive format: PMTiles (MBTiles was considered and rejected).

### In Progress
- [ ] The --bbox flag for the build command.

### Blocked
- Building zoom 14 (`python -m tiler.build --zoom 14`) fails with MemoryError: it tries to allocate 3.2 GiB for a 20000x20000 array. Not solved yet.

## Key Decisions
- **Archive**: PMTiles rather than MBTiles.

## Next Steps
1. Implement --bbox.
2. Write the tile URL scheme down in docs/tiles.md (open TODO).
3. Come back to the zoom-14 memory problem.

## Critical Context
- Vertex simplification: `TileSimplifier.reduce_vertices`.
- Cache entries expire after 90 days.""",
        "verdicts": dict(_ALL_KEPT),
        "notes": {"constraint": "\u201cover three tables (more than 3)\u201d"},
    },
    {
        "split": "tune",
        "session": "tune-04-pi-geo-tiles",
        "label": "a deliberately bad summary, pi checkpoint (bad)",
        "role": "bad",
        "summary": """## Goal
Keep working on the map tile server.

## Constraints & Preferences
- (none)

## Progress
### Done
- [x] Looked around the tiler package.
- [x] Tile builds at zoom 14 work again after the memory fix.
- [x] Archive format decided: MBTiles.

### In Progress
- [ ] General clean-up.

### Blocked
- (none)

## Key Decisions
- (none)

## Next Steps
1. Continue.

## Critical Context
- The cache keeps tiles for 30 days.""",
        "verdicts": {
            "path": "lost",
            "name": "lost",
            "number": "contradicted",
            "error": "contradicted",
            "constraint": "lost",
            "preference": "lost",
            "decision": "contradicted",
            "todo": "lost",
            "request": "lost",
            "previous": "lost",
        },
        "notes": {"error": "the MemoryError was never fixed", "decision": "PMTiles was chosen", "number": "90 days"},
    },
    {
        "split": "tune",
        "session": "tune-13-openclaw-infra",
        "label": "a thorough model, OpenClaw's sections (good)",
        "role": "good",
        "summary": """## Decisions
- Terraform state: S3 backend with DynamoDB locking, replacing local state.
- Layout: one module per AWS service, as the user prefers.

## Open TODOs
- Tag every resource with cost-center=platform.

## Constraints/Rules
- terraform apply against prod is off-limits: the agent must not run it.
- The load balancer listens on port 8443.

## Pending user asks
- Add a NAT gateway in each availability zone.

## Exact identifiers
- terraform/modules/vpc/main.tf (the VPC)
- variable private_subnet_cidrs (the subnets)
- staging AWS account 318274650912

## Tool Failures
- terraform plan: Invalid CIDR block 10.0.300.0/24; still unresolved.""",
        "verdicts": dict(_ALL_KEPT),
        "notes": {},
    },
    {
        "split": "tune",
        "session": "tune-13-openclaw-infra",
        "label": "a deliberately bad summary, OpenClaw's sections (bad)",
        "role": "bad",
        "summary": """## Decisions
- Keep local state for now.

## Open TODOs
- (none)

## Constraints/Rules
- The load balancer listens on port 8080.

## Pending user asks
- Infrastructure work.

## Exact identifiers
- terraform/

## Tool Failures
- terraform plan passes.""",
        "verdicts": {
            "path": "lost",
            "name": "lost",
            "number": "contradicted",
            "error": "contradicted",
            "constraint": "lost",
            "preference": "lost",
            "decision": "contradicted",
            "todo": "lost",
            "request": "lost",
            "previous": "lost",
        },
        "notes": {"error": "the invalid CIDR was never fixed", "number": "8443", "decision": "S3 + DynamoDB"},
    },
    {
        "split": "tune",
        "session": "tune-09-openclaw-chatbot",
        "label": "a model with slips, OpenClaw's sections",
        "summary": """## Decisions
- Replies stream over WebSockets instead of server-sent events.

## Open TODOs
- Rotate the OpenAI API key (kept in .env.local).

## Constraints/Rules
- Leave the package.json version alone; no version bumps.
- npm is fine for installs (the user withdrew the pnpm preference).
- Gateway timeout: 30 s.

## Pending user asks
- Add retries with jitter to the OpenAI client.

## Exact identifiers
- src/prompts/system_prompt.txt
- ConversationBuffer (history trimming)

## Tool Failures
- npm test crashed in parseReply (TypeError reading 'choices' of undefined); fixed by checking for an empty reply first.""",
        "verdicts": {
            "path": "kept",
            "name": "lost",
            "number": "kept",
            "error": "kept",
            "constraint": "kept",
            "preference": "kept",
            "decision": "contradicted",
            "todo": "kept",
            "request": "kept",
            "previous": "lost",
        },
        "notes": {
            "decision": "server-sent events were chosen, not WebSockets",
            "name": "the class without its method trim_to_budget",
            "previous": "the 20 requests/minute free-tier limit is gone",
        },
    },
    {
        "split": "heldout",
        "session": "heldout-17-openclaw-shopfront",
        "label": "a thorough model, OpenClaw's sections (good)",
        "role": "good",
        "summary": """## Decisions
- The cart lives in the server session, not in localStorage.

## Open TODOs
- Write an e2e test for the coupon flow.

## Constraints/Rules
- The payment provider is never called from the browser (server-side only).
- Uploads: images bigger than 2 MB are rejected.
- Styling: Tailwind is fine; the user dropped the CSS-modules preference.

## Pending user asks
- Show the VAT line only when the shipping address is in the EU.

## Exact identifiers
- web/src/cart/CartTotals.tsx (where the totals bug is)
- formatMoney (shared utils, formats prices)
- config/flags.yaml (feature flags)

## Tool Failures
- pnpm build failed with TS2345 (a string quantity passed where a number is expected); fixed by parsing with Number(), the build passes.""",
        "verdicts": dict(_ALL_KEPT),
        "notes": {},
    },
    {
        "split": "heldout",
        "session": "heldout-17-openclaw-shopfront",
        "label": "a deliberately bad summary, OpenClaw's sections (bad)",
        "role": "bad",
        "summary": """## Decisions
- The cart is stored in localStorage.

## Open TODOs
- (none)

## Constraints/Rules
- Images up to 20 MB are accepted.

## Pending user asks
- Fix the shop.

## Exact identifiers
- web/

## Tool Failures
- (none)""",
        "verdicts": {
            "path": "lost",
            "name": "lost",
            "number": "contradicted",
            "error": "lost",
            "constraint": "lost",
            "preference": "lost",
            "decision": "contradicted",
            "todo": "lost",
            "request": "lost",
            "previous": "lost",
        },
        "notes": {"number": "2 MB", "decision": "server sessions were chosen"},
    },
    {
        "split": "heldout",
        "session": "heldout-22-claude_code-ingest",
        "label": "a thorough model, Claude Code's nine sections (good)",
        "role": "good",
        "summary": """This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.

Summary:
1. Primary Request and Intent:
   The user is building the event ingest pipeline. Latest request: make the batch window configurable through the INGEST_WINDOW_MS environment variable.
2. Key Technical Concepts:
   - Dedupe with a bloom filter (chosen over an exact hash set)
   - Kafka topic ingest.events.v2 on broker kafka-1.lan:9092
   - Worker memory cap: 512 MiB per worker
3. Files and Code Sections:
   - pipeline/stages/dedupe.rs: the deduplication stage
   - `RecordKey::from_envelope`: builds the record key
4. Errors and fixes:
   - `cargo test`: the dedupe window test panics with index out of bounds (len 4, index 4). Not fixed yet.
5. Problem Solving:
   Dedupe design settled; the window test still fails.
6. All user messages:
   - "Only when the backlog exceeds 10000 messages should you scale to more workers."
   - "I prefer tracing spans to println debugging."
   - "TODO: expose the dedupe hit rate as a Prometheus metric."
   - "Please make the batch window configurable via INGEST_WINDOW_MS."
7. Pending Tasks:
   - Prometheus metric for the dedupe hit rate
   - Fix the panicking window test
8. Current Work:
   Making the batch window configurable.
9. Optional Next Step:
   Read INGEST_WINDOW_MS in the batching stage.

Please continue the conversation from where we left it off without asking the user any further questions. Continue with the last task that you were asked to work on.""",
        "verdicts": dict(_ALL_KEPT),
        "notes": {},
    },
    {
        "split": "heldout",
        "session": "heldout-22-claude_code-ingest",
        "label": "a deliberately bad summary, Claude Code's nine sections (bad)",
        "role": "bad",
        "summary": """This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.

Summary:
1. Primary Request and Intent:
   Work on the ingest pipeline.
2. Key Technical Concepts:
   - Dedupe with an exact hash set
3. Files and Code Sections:
   - (none)
4. Errors and fixes:
   - cargo test passes.
5. Problem Solving:
   (none)
6. All user messages:
   - (not kept)
7. Pending Tasks:
   - (none)
8. Current Work:
   Dedupe.
9. Optional Next Step:
   Continue.""",
        "verdicts": {
            "path": "lost",
            "name": "lost",
            "number": "lost",
            "error": "contradicted",
            "constraint": "lost",
            "preference": "lost",
            "decision": "contradicted",
            "todo": "lost",
            "request": "lost",
            "previous": "lost",
        },
        "notes": {"error": "the window test still panics", "decision": "a bloom filter was chosen"},
    },
]

# --- three more careful model summaries on tune sessions, phrased freely (constraints and errors in other words)
HAND += [
    {
        "split": "tune",
        "session": "tune-02-claude_code-billing",
        "label": "a careful model in its own words, Claude Code's nine sections",
        "summary": """This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.

Summary:
1. Primary Request and Intent:
   Billing service work. The user's latest request: the Stripe webhook handler has to be idempotent, keyed on the Stripe event id.
2. Key Technical Concepts:
   - Refund job locking via Postgres advisory locks (chosen over Redis locks)
   - Nightly export in 500-row batches
   - Staging database: db-stg-02.internal
3. Files and Code Sections:
   - services/billing/retry.py: retry logic; the backoff delay comes from compute_backoff_ms()
4. Errors and fixes:
   - test_rounding in tests/test_refund.py was off by one cent (10.01 vs 10.00); fixed by quantizing with ROUND_HALF_EVEN, the test passes now.
5. Problem Solving:
   Rounding settled.
6. All user messages:
   - Keep the Authorization header out of the logs, always.
   - Indentation: the tabs idea is withdrawn; the repo's black config applies.
   - Still to do: a regression test covering partial refunds.
7. Pending Tasks:
   - Regression test for partial refunds
8. Current Work:
   Webhook idempotency.
9. Optional Next Step:
   Store processed Stripe event ids and skip repeats.""",
        "verdicts": dict(_ALL_KEPT),
        "notes": {"constraint": "\u201ckeep the Authorization header out of the logs\u201d: the same rule"},
    },
    {
        "split": "tune",
        "session": "tune-07-codex-geo-tiles",
        "label": "a careful model in its own words, Codex handoff",
        "summary": """Handoff: map tile server.
- Latest ask: the build command should take a --bbox flag.
- Migrations touching more than 3 tables need the user's go-ahead before they run.
- The user wants GeoJSON fixtures in tests rather than shapefiles.
- Archive format: PMTiles (not MBTiles).
- Encoding lives in tiler/render/mvt_encoder.py; simplification in TileSimplifier.reduce_vertices.
- Tile cache TTL: 90 days.
- The zoom-14 build still runs out of memory (MemoryError allocating 3.2 GiB); unresolved.
- Open: write the tile URL scheme down in docs/tiles.md.
- Git: push to origin only, never to upstream.""",
        "verdicts": dict(_ALL_KEPT),
        "notes": {},
    },
    {
        "split": "tune",
        "session": "tune-12-pi-infra",
        "label": "a careful model with two slips, pi checkpoint",
        "summary": """## Goal
Add a NAT gateway to each availability zone.

## Constraints & Preferences
- terraform apply against prod is off-limits for the agent.
- One Terraform module for each AWS service (user preference).

## Progress
### Done
- [x] Found the VPC definition (terraform/modules/vpc/main.tf); subnets come from private_subnet_cidrs.

### In Progress
- [ ] NAT gateways

### Blocked
- terraform plan rejects the CIDR block 10.0.300.0/24 as invalid; not fixed.

## Key Decisions
- **State**: keep local state for now instead of an S3 backend.

## Next Steps
1. NAT gateway per AZ.
2. Tag every resource with cost-center=platform (TODO).

## Critical Context
- Load balancer port: 443.
- Staging AWS account: 318274650912.""",
        "verdicts": {**_ALL_KEPT, "decision": "contradicted", "number": "contradicted"},
        "notes": {"decision": "S3 with DynamoDB locking was chosen", "number": "8443, not 443"},
    },
]
