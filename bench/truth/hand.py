"""Summaries judged by hand: written the way a model writes them (not assembled from the catalogue's lines), on held-out sessions.

Each one stands in for the summary of its session's compaction under test; `verdicts`
are my own reading, fact by fact (kept / lost / contradicted), independent of the
regex judges. The tests/fixtures/corpus summaries were written by a fake model ("FAKE
SUMMARY #k"), so there is no real model-written summary in the repository to add here.
"""

from __future__ import annotations

from typing import Any

HAND: list[dict[str, Any]] = [
    {
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
