"""The planted facts of the truth set, written by hand: six projects ("themes"), ten kinds of fact each.

Every fact says where it comes from in the conversation (`source`: the events that
establish it) and how a summary states it three ways: `verbatim`, `reworded` (the same
fact in other words) and `contradicted` (the summary states it otherwise: another
number or unit, a flipped negation or modality, a reversed choice, another name in the
same role). A fourth treatment, dropped, leaves it out.

The truth-side judge of each fact is written here too, by hand and independent of
cutline's own extraction: `present` (regexes that must all match somewhere in a
summary for the fact to be kept) and `contra` (regexes any of which, matching, means
the summary contradicts it). `generate.py` checks that the judge gives each planted
summary exactly the verdict its treatment means.

Themes 0-3 are for tuning; themes 4-5 are held out (never tuned on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# kinds of planted fact (the key's `kind`), in a fixed order
KINDS = (
    "path",
    "name",
    "number",
    "error",
    "constraint",
    "preference",
    "decision",
    "todo",
    "request",
    "previous",
)
TREATMENTS = ("verbatim", "reworded", "dropped", "contradicted")
TUNE_THEMES = (0, 1, 2, 3)
HELD_OUT_THEMES = (4, 5)

# importance weights the truth gives each kind (README: "Importance")
WEIGHTS = {
    "constraint": 3.0,
    "preference": 3.0,
    "request": 3.0,
    "todo": 2.5,
    "error": 2.5,
    "decision": 2.0,
    "previous": 2.0,
    "number": 1.5,
    "path": 1.0,
    "name": 0.75,
}

# an event of the conversation: ("user", text) | ("say", text) | ("tool", tool, arg, result, is_error)
# `tool` is "read" (arg: a path relative to the cwd) or "bash" (arg: a command)
Event = tuple[Any, ...]


@dataclass(frozen=True)
class Fact:
    kind: str
    source: tuple[Event, ...]
    verbatim: str
    reworded: str
    contradicted: str
    present: tuple[str, ...]
    contra: tuple[str, ...]
    anchors: tuple[str, ...]
    variant: str = ""
    # events said later in the conversation (a revocation, a fix)
    later: tuple[Event, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Theme:
    name: str
    cwd: str
    project: str
    facts: dict[str, Fact]


NOISE: tuple[Event, ...] = (
    ("say", "Noted, I will do that once the current work is green."),
    ("tool", "bash", "python manage.py migrate", "Operations to perform:\n  No migrations to apply.", False),
    ("say", "The status bar template is `Thinking: ${newLevel}` and the picker cycles Model/thinking/theme."),
    ("tool", "bash", "git diff --summary", "Command aborted\n old mode 100644\n new mode 100755 scripts/run.sh", False),
    ("say", "That earlier traceback ended in _ssl.c:1006 inside CPython, nothing of ours."),
)
# lower-case strings that mark an audit report as one of the noise items above
NOISE_ANCHORS = (
    "noted, i will do",
    "manage.py",
    "${newlevel}",
    "model/thinking/theme",
    "command aborted",
    "100644",
    "100755",
    "_ssl.c",
    "scripts/run.sh",
    "git diff",
)


def _t0() -> Theme:
    cwd = "/home/ana/src/billing"
    facts = {
        "path": Fact(
            "path",
            (
                ("tool", "read", "services/billing/retry.py", "def retry(call, attempts=5):\n    ...", False),
                ("say", "The retry logic lives in services/billing/retry.py."),
            ),
            "The retry logic lives in services/billing/retry.py.",
            "Retries are implemented in /home/ana/src/billing/services/billing/retry.py.",
            "The retry logic lives in services/payments/retry.py.",
            (r"services/billing/retry\.py",),
            (r"services/payments/retry\.py",),
            ("billing/retry.py",),
        ),
        "name": Fact(
            "name",
            (("say", "The backoff delay is computed by `compute_backoff_ms()`."),),
            "The backoff delay is computed by `compute_backoff_ms()`.",
            "`compute_backoff_ms()` is where the wait between attempts gets calculated.",
            "The backoff delay is computed by `compute_delay_ms()`.",
            (r"compute_backoff_ms",),
            (r"compute_delay_ms",),
            ("compute_backoff_ms",),
        ),
        "number": Fact(
            "number",
            (("user", "The nightly export runs in batches of 500 rows."),),
            "The nightly export runs in batches of 500 rows.",
            "Nightly export: 500-row batches.",
            "The nightly export runs in batches of 5000 rows.",
            (r"\b500[- ]rows?\b",),
            (r"\b(?!500\b)\d[\d,]*[- ]rows?\b",),
            ("500 rows",),
        ),
        "error": Fact(
            "error",
            (
                (
                    "tool",
                    "bash",
                    "pytest tests/test_refund.py",
                    "FAILED tests/test_refund.py::test_rounding - AssertionError: assert Decimal('10.01') == Decimal('10.00')",
                    True,
                ),
            ),
            "test_rounding failed with AssertionError: assert Decimal('10.01') == Decimal('10.00'); fixed by quantizing with ROUND_HALF_EVEN.",
            "The refund rounding test test_rounding was off by a cent; resolved by switching the quantize call to ROUND_HALF_EVEN.",
            "test_rounding still fails with AssertionError: assert Decimal('10.01') == Decimal('10.00'); not fixed yet.",
            (r"test_rounding", r"round_half_even"),
            (r"test_rounding[^\n]*(still fail|not fixed|unresolved)",),
            ("test_rounding", "round_half_even"),
            variant="fixed",
            later=(("say", "Fixed the rounding error by quantizing with ROUND_HALF_EVEN; test_rounding passes now."),),
        ),
        "constraint": Fact(
            "constraint",
            (("user", "Never log the Authorization header."),),
            "Never log the Authorization header.",
            "The Authorization header must not end up in any log line.",
            "Always log the Authorization header.",
            (r"(never|not|n't|no)\b[^.\n]*authorization header|authorization header[^.\n]*(must not|never|not be)",),
            (r"always log\w*[^.\n]*authorization header", r"authorization header[^.\n]*(should|must|may) be logged"),
            ("authorization header",),
            variant="negated",
        ),
        "preference": Fact(
            "preference",
            (("user", "I prefer tabs for indentation in new files."),),
            "Forget the tabs preference; follow the repo's black config instead.",
            "Formatting follows the repository's black settings (the earlier wish for tabs was withdrawn).",
            "The user prefers tabs for indentation in new files.",
            (r"black",),
            (r"prefer\w*\s+tabs(?![^.\n]*(withdrawn|revoked|forget|dropped|no longer))",),
            ("tabs", "black config"),
            variant="revoked",
            later=(("user", "Forget the tabs preference; follow the repo's black config instead."),),
        ),
        "decision": Fact(
            "decision",
            (("say", "I'll use Postgres advisory locks instead of Redis locks for the refund job."),),
            "I'll use Postgres advisory locks instead of Redis locks for the refund job.",
            "Decision: the refund job takes a Postgres advisory lock; a Redis-based lock was rejected.",
            "I'll use Redis locks instead of Postgres advisory locks for the refund job.",
            (r"postgres advisory lock",),
            (r"redis locks?\s+(instead of|over|rather than)\s+postgres", r"(use|chose|went with)\s+redis lock"),
            ("advisory lock",),
        ),
        "todo": Fact(
            "todo",
            (("user", "TODO: add a regression test for the partial-refund path."),),
            "TODO: add a regression test for the partial-refund path.",
            "Still open: a regression test that covers partial refunds.",
            "Added a regression test for the partial-refund path (done).",
            (r"regression test", r"partial[- ]refund"),
            (r"(added|wrote|done)[^\n]*regression test[^\n]*partial[- ]refund",),
            ("partial-refund", "partial refund"),
        ),
        "request": Fact(
            "request",
            (("user", "Now make the webhook handler idempotent using the Stripe event id."),),
            "Now make the webhook handler idempotent using the Stripe event id.",
            "Current task: deduplicate webhook deliveries by their Stripe event id so handling them twice is harmless.",
            "Now make the webhook handler idempotent using the request timestamp.",
            (r"stripe event id",),
            (r"idempot\w*[^.\n]*timestamp",),
            ("stripe event id",),
        ),
        "previous": Fact(
            "previous",
            (),
            "The staging database host is db-stg-02.internal.",
            "Staging DB lives on db-stg-02.internal.",
            "The staging database host is db-stg-04.internal.",
            (r"db-stg-02\.internal",),
            (r"db-stg-0[013-9]\.internal",),
            ("db-stg-02",),
        ),
    }
    return Theme("billing", cwd, "the billing service", facts)


def _t1() -> Theme:
    cwd = "/srv/work/geo-tiles"
    facts = {
        "path": Fact(
            "path",
            (
                ("tool", "read", "tiler/render/mvt_encoder.py", "class Encoder:\n    ...", False),
                ("say", "Tile encoding happens in tiler/render/mvt_encoder.py."),
            ),
            "Tile encoding happens in tiler/render/mvt_encoder.py.",
            "The MVT encoder module is /srv/work/geo-tiles/tiler/render/mvt_encoder.py.",
            "Tile encoding happens in tiler/render/png_encoder.py.",
            (r"tiler/render/mvt_encoder\.py",),
            (r"tiler/render/png_encoder\.py",),
            ("mvt_encoder.py",),
        ),
        "name": Fact(
            "name",
            (("say", "Simplification is done in `TileSimplifier.reduce_vertices`."),),
            "Simplification is done in `TileSimplifier.reduce_vertices`.",
            "`TileSimplifier.reduce_vertices` performs the geometry simplification.",
            "Simplification is done in `TileSimplifier.merge_polygons`.",
            (r"reduce_vertices",),
            (r"merge_polygons",),
            ("reduce_vertices",),
        ),
        "number": Fact(
            "number",
            (("user", "The tile cache keeps entries for 90 days."),),
            "The tile cache keeps entries for 90 days.",
            "Cached tiles expire after 90 days.",
            "The tile cache keeps entries for 30 days.",
            (r"\b90[- ]days?\b",),
            (r"\b(?!90\b)\d+[- ]days?\b", r"\b90[- ](hours?|minutes?|weeks?)\b"),
            ("90 days",),
        ),
        "error": Fact(
            "error",
            (
                (
                    "tool",
                    "bash",
                    "python -m tiler.build --zoom 14",
                    "MemoryError: unable to allocate 3.2 GiB for array with shape (20000, 20000)",
                    True,
                ),
            ),
            "python -m tiler.build --zoom 14 fails with MemoryError: unable to allocate 3.2 GiB for array; still unresolved.",
            "Building zoom level 14 runs out of memory (MemoryError allocating 3.2 GiB); no fix found yet.",
            "The MemoryError at zoom 14 (3.2 GiB allocation) was fixed by chunking the raster.",
            (r"memoryerror|out of memory", r"3\.2 ?gib"),
            (r"memoryerror[^\n]*\b(fixed|resolved)\b", r"\b(fixed|resolved)\b[^\n]*memoryerror"),
            ("memoryerror", "3.2 gib"),
            variant="unfixed",
        ),
        "constraint": Fact(
            "constraint",
            (("user", "If a migration touches more than 3 tables, ask me before running it."),),
            "If a migration touches more than 3 tables, ask me before running it.",
            "Migrations that change over 3 tables need the user's approval before they run.",
            "Migrations may run without asking, whatever the number of tables.",
            (r"(more than|over|>) ?3 tables",),
            (r"without asking", r"(more than|over) ?(?!3\b)\d+ tables"),
            ("3 tables",),
            variant="conditional",
        ),
        "preference": Fact(
            "preference",
            (("user", "I prefer GeoJSON fixtures over shapefiles in tests."),),
            "I prefer GeoJSON fixtures over shapefiles in tests.",
            "Tests should use GeoJSON fixtures rather than shapefiles, as the user likes.",
            "I prefer shapefiles over GeoJSON fixtures in tests.",
            (r"geojson",),
            (r"prefer\w*\s+shapefiles", r"shapefiles?\s+(over|rather than|instead of)\s+geojson"),
            ("geojson",),
            variant="in force",
        ),
        "decision": Fact(
            "decision",
            (("say", "I'll go with PMTiles instead of MBTiles for the archive."),),
            "I'll go with PMTiles instead of MBTiles for the archive.",
            "Chosen archive format: PMTiles (MBTiles considered and rejected).",
            "I'll go with MBTiles instead of PMTiles for the archive.",
            (r"pmtiles",),
            (r"mbtiles\s+(instead of|over|rather than)\s+pmtiles", r"(go with|chose|chosen|using)\s+mbtiles"),
            ("pmtiles",),
        ),
        "todo": Fact(
            "todo",
            (("user", "TODO: document the tile URL scheme in docs/tiles.md."),),
            "TODO: document the tile URL scheme in docs/tiles.md.",
            "Outstanding: write up the tile URL scheme in docs/tiles.md.",
            "The tile URL scheme is already documented in docs/tiles.md.",
            (r"docs/tiles\.md", r"url scheme"),
            (r"already documented", r"url scheme[^\n]*(done|documented)\b"),
            ("docs/tiles.md",),
        ),
        "request": Fact(
            "request",
            (("user", "Please add a --bbox flag to the build command."),),
            "Please add a --bbox flag to the build command.",
            "Latest ask: the build command should accept a --bbox option.",
            "Please add a --zoom-range flag to the build command.",
            (r"--bbox",),
            (r"add a --(?!bbox)[\w-]+ flag",),
            ("--bbox",),
        ),
        "previous": Fact(
            "previous",
            (),
            "Do not push to the upstream remote; only push to origin.",
            "Pushes go to origin only, never to the upstream remote.",
            "Push to the upstream remote, not to origin.",
            (r"origin", r"upstream"),
            (r"push to the upstream remote, not", r"push\w*[^.\n]*upstream[^.\n]*(not|instead of)[^.\n]*origin"),
            ("upstream remote",),
        ),
    }
    return Theme("geo-tiles", cwd, "the map tile server", facts)


def _t2() -> Theme:
    cwd = "/Users/kim/code/chatbot"
    facts = {
        "path": Fact(
            "path",
            (
                ("user", "Look at @src/prompts/system_prompt.txt first."),
                ("tool", "read", "src/prompts/system_prompt.txt", "You are a helpful assistant...", False),
            ),
            "Look at @src/prompts/system_prompt.txt first.",
            "The system prompt is in src/prompts/system_prompt.txt.",
            "The system prompt is in src/prompts/user_prompt.txt.",
            (r"src/prompts/system_prompt\.txt",),
            (r"src/prompts/(?!system_prompt)\w+\.txt",),
            ("system_prompt.txt",),
        ),
        "name": Fact(
            "name",
            (("say", "Messages are trimmed by `ConversationBuffer.trim_to_budget`."),),
            "Messages are trimmed by `ConversationBuffer.trim_to_budget`.",
            "`ConversationBuffer.trim_to_budget` is what cuts old messages.",
            "Messages are trimmed by `ConversationBuffer.drop_oldest`.",
            (r"trim_to_budget",),
            (r"drop_oldest",),
            ("trim_to_budget",),
        ),
        "number": Fact(
            "number",
            (("user", "The API gateway times out after 30 seconds."),),
            "The API gateway times out after 30 seconds.",
            "Gateway timeout: 30 s.",
            "The API gateway times out after 30 minutes.",
            (r"\b30 ?(seconds?|s|secs?)\b",),
            (r"\b30 ?(minutes?|min|ms|milliseconds?)\b", r"\b(?!30\b)\d+ ?(seconds?|secs?)\b"),
            ("30 seconds", "30 s"),
        ),
        "error": Fact(
            "error",
            (
                (
                    "tool",
                    "bash",
                    "npm test",
                    "TypeError: Cannot read properties of undefined (reading 'choices')\n    at parseReply (src/client.ts:41:19)",
                    True,
                ),
            ),
            "TypeError: Cannot read properties of undefined (reading 'choices') in parseReply; fixed by checking for an empty reply first.",
            "parseReply crashed on an empty reply (undefined 'choices'); fixed with a guard for the empty case.",
            "parseReply still throws TypeError: Cannot read properties of undefined (reading 'choices'); unresolved.",
            (r"parsereply", r"choices"),
            (r"(still|unresolved|not fixed)[^\n]*(choices|parsereply)|parsereply[^\n]*(still|unresolved|not fixed)",),
            ("parsereply", "'choices'"),
            variant="fixed",
            later=(("say", "Fixed parseReply by checking for an empty reply first; npm test is green."),),
        ),
        "constraint": Fact(
            "constraint",
            (("user", "Don't bump the version in package.json."),),
            "Don't bump the version in package.json.",
            "The version field of package.json stays as it is.",
            "Bump the version in package.json.",
            (r"(don't|do not|never|not)\b[^.\n]*bump[^.\n]*version|version[^\n]*(stays|unchanged|as it is|must not)",),
            (r"(?<!don't )(?<!not )(?<!never )\bbump the version",),
            ("package.json",),
            variant="negated",
        ),
        "preference": Fact(
            "preference",
            (("user", "I'd rather you use pnpm than npm for installs."),),
            "Scratch the pnpm preference; npm is fine for installs.",
            "Installs can use npm after all (the pnpm wish was taken back).",
            "The user wants pnpm, not npm, for installs.",
            (r"npm is fine|use npm|npm after all|npm for installs",),
            (r"(wants|prefers?|rather)[^.\n]*pnpm(?![^.\n]*(taken back|scratch|revoked|withdrawn))",),
            ("pnpm",),
            variant="revoked",
            later=(("user", "Scratch the pnpm preference; npm is fine for installs."),),
        ),
        "decision": Fact(
            "decision",
            (("say", "I'll stream the reply with server-sent events instead of WebSockets."),),
            "I'll stream the reply with server-sent events instead of WebSockets.",
            "Replies are streamed over SSE; WebSockets were considered and not chosen.",
            "I'll stream the reply with WebSockets instead of server-sent events.",
            (r"server-sent events|\bsse\b",),
            (r"websockets?\s+(instead of|over|rather than)\s+(server-sent|sse)", r"stream\w*[^.\n]*with websockets"),
            ("server-sent events", "sse"),
        ),
        "todo": Fact(
            "todo",
            (("user", "TODO: rotate the OpenAI key stored in .env.local."),),
            "TODO: rotate the OpenAI key stored in .env.local.",
            "Pending: the OpenAI key in .env.local still has to be rotated.",
            "The OpenAI key in .env.local was rotated (done).",
            (r"\.env\.local", r"rotat"),
            (r"was rotated|rotated \(done\)|key rotation done",),
            (".env.local",),
        ),
        "request": Fact(
            "request",
            (("user", "Can you add retry with jitter to the OpenAI client?"),),
            "Can you add retry with jitter to the OpenAI client?",
            "Latest request: the OpenAI client should retry failed calls with randomized (jittered) delays.",
            "Can you add a circuit breaker to the OpenAI client?",
            (r"retr", r"jitter"),
            (r"circuit breaker",),
            ("jitter",),
        ),
        "previous": Fact(
            "previous",
            (),
            "Rate limit for the free tier is 20 requests per minute.",
            "Free-tier users get 20 requests/minute.",
            "Rate limit for the free tier is 200 requests per minute.",
            (r"\b20 (requests?|req)(/| per )min",),
            (r"\b(?!20\b)\d+ (requests?|req)(/| per )min",),
            ("20 requests",),
        ),
    }
    return Theme("chatbot", cwd, "the support chatbot", facts)


def _t3() -> Theme:
    cwd = "/home/raj/infra"
    facts = {
        "path": Fact(
            "path",
            (
                ("tool", "read", "terraform/modules/vpc/main.tf", 'resource "aws_vpc" "main" {}', False),
                ("say", "The VPC is defined in terraform/modules/vpc/main.tf."),
            ),
            "The VPC is defined in terraform/modules/vpc/main.tf.",
            "VPC definition: /home/raj/infra/terraform/modules/vpc/main.tf.",
            "The VPC is defined in terraform/modules/network/main.tf.",
            (r"terraform/modules/vpc/main\.tf",),
            (r"terraform/modules/(?!vpc/)\w+/main\.tf",),
            ("modules/vpc/main.tf",),
        ),
        "name": Fact(
            "name",
            (("say", "The subnets come from the `private_subnet_cidrs` variable."),),
            "The subnets come from the `private_subnet_cidrs` variable.",
            "`private_subnet_cidrs` is the variable the subnets are built from.",
            "The subnets come from the `public_subnet_cidrs` variable.",
            (r"private_subnet_cidrs",),
            (r"public_subnet_cidrs",),
            ("private_subnet_cidrs",),
        ),
        "number": Fact(
            "number",
            (("user", "The load balancer must listen on port 8443."),),
            "The load balancer must listen on port 8443.",
            "LB listener port: 8443.",
            "The load balancer must listen on port 8080.",
            (r"\b8443\b",),
            (r"port (?!8443\b)\d{2,5}\b",),
            ("8443",),
        ),
        "error": Fact(
            "error",
            (
                (
                    "tool",
                    "bash",
                    "terraform plan",
                    "Error: Invalid CIDR block: 10.0.300.0/24 is not a valid CIDR address",
                    True,
                ),
            ),
            "terraform plan fails: Error: Invalid CIDR block: 10.0.300.0/24; not fixed yet.",
            "The plan is still blocked on the bad CIDR 10.0.300.0/24 (invalid address), unresolved.",
            "The invalid CIDR block 10.0.300.0/24 was fixed and terraform plan passes.",
            (r"10\.0\.300\.0/24",),
            (r"10\.0\.300\.0/24[^\n]*(was fixed|is fixed|\bpasses)",),
            ("10.0.300.0",),
            variant="unfixed",
        ),
        "constraint": Fact(
            "constraint",
            (("user", "You must not run terraform apply against prod."),),
            "You must not run terraform apply against prod.",
            "terraform apply is off-limits for the prod environment.",
            "You may run terraform apply against prod.",
            (
                r"(must not|never|not|off-limits|forbidden)[^.\n]*apply[^.\n]*prod|apply[^.\n]*(off-limits|forbidden)[^.\n]*prod",
            ),
            (r"(may|can|should) run terraform apply against prod",),
            ("terraform apply",),
            variant="negated",
        ),
        "preference": Fact(
            "preference",
            (("user", "I prefer one module per AWS service."),),
            "I prefer one module per AWS service.",
            "Layout wish: a separate module for each AWS service.",
            "I prefer one module for all AWS services.",
            (r"(one|a separate|separate) module (per|for each) aws service",),
            (r"one module for all aws services", r"single module for all"),
            ("module per aws service", "module for each aws service"),
            variant="in force",
        ),
        "decision": Fact(
            "decision",
            (("say", "I'll use an S3 backend with DynamoDB locking instead of local state."),),
            "I'll use an S3 backend with DynamoDB locking instead of local state.",
            "State goes to S3 (locked through DynamoDB) rather than a local state file.",
            "I'll keep local state instead of an S3 backend with DynamoDB locking.",
            (r"\bs3\b", r"dynamodb"),
            (r"local state instead of", r"keep local state"),
            ("dynamodb",),
        ),
        "todo": Fact(
            "todo",
            (("user", "TODO: tag every resource with cost-center=platform."),),
            "TODO: tag every resource with cost-center=platform.",
            "Remaining: every resource still needs the cost-center=platform tag.",
            "Every resource is already tagged with cost-center=platform.",
            (r"cost-center=platform",),
            (r"already tagged",),
            ("cost-center=platform",),
        ),
        "request": Fact(
            "request",
            (("user", "Next, add a NAT gateway in each availability zone."),),
            "Next, add a NAT gateway in each availability zone.",
            "Current ask: one NAT gateway per availability zone.",
            "Next, add a single NAT gateway shared by all availability zones.",
            (r"nat gateway", r"(each|per|every) (availability zone|az)"),
            (r"single nat gateway|one nat gateway (shared|for all)",),
            ("nat gateway",),
        ),
        "previous": Fact(
            "previous",
            (),
            "The AWS account for staging is 318274650912.",
            "Staging runs in AWS account 318274650912.",
            "The AWS account for staging is 318274650921.",
            (r"318274650912",),
            (r"3182746509(?!12)\d\d",),
            ("318274650912",),
        ),
    }
    return Theme("infra", cwd, "the Terraform infrastructure", facts)


def _t4() -> Theme:
    cwd = "/home/lea/projects/shopfront"
    facts = {
        "path": Fact(
            "path",
            (
                ("user", "The bug is somewhere in @web/src/cart/CartTotals.tsx."),
                ("tool", "read", "web/src/cart/CartTotals.tsx", "export function CartTotals() {}", False),
            ),
            "The bug is somewhere in @web/src/cart/CartTotals.tsx.",
            "The cart totals bug sits in web/src/cart/CartTotals.tsx.",
            "The bug is somewhere in web/src/cart/CartItems.tsx.",
            (r"web/src/cart/carttotals\.tsx",),
            (r"web/src/cart/(?!carttotals)\w+\.tsx",),
            ("carttotals.tsx",),
        ),
        "name": Fact(
            "name",
            (("say", "Prices are formatted by `formatMoney` from the shared utils."),),
            "Prices are formatted by `formatMoney` from the shared utils.",
            "`formatMoney` (shared utils) does the price formatting.",
            "Prices are formatted by `formatCurrency` from the shared utils.",
            (r"formatmoney",),
            (r"formatcurrency",),
            ("formatmoney",),
        ),
        "number": Fact(
            "number",
            (("user", "Images over 2 MB must be rejected at upload."),),
            "Images over 2 MB must be rejected at upload.",
            "Uploads: reject any image bigger than 2 MB.",
            "Images over 20 MB must be rejected at upload.",
            (r"\b2 ?mb\b",),
            (r"\b(?!2\b)\d+ ?mb\b", r"\b2 ?(kb|gb)\b"),
            ("2 mb",),
        ),
        "error": Fact(
            "error",
            (
                (
                    "tool",
                    "bash",
                    "pnpm build",
                    "error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
                    True,
                ),
            ),
            "pnpm build failed with error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'; fixed by parsing the quantity.",
            "The build broke on a type mismatch (TS2345, a string passed where a number is expected); resolved by parsing the quantity first.",
            "error TS2345 (string passed as number) still breaks pnpm build; not fixed.",
            (r"ts2345",),
            (r"ts2345[^\n]*(still|not fixed|unresolved)",),
            ("ts2345",),
            variant="fixed",
            later=(("say", "Fixed TS2345 by parsing the quantity with Number() first; pnpm build passes."),),
        ),
        "constraint": Fact(
            "constraint",
            (("user", "Never call the payment provider from the browser."),),
            "Never call the payment provider from the browser.",
            "Calls to the payment provider must not come from the browser, only from the server.",
            "Call the payment provider directly from the browser.",
            (
                r"(never|not|only from the server)[^.\n]*payment provider|payment provider[^.\n]*(must not|never|not from)",
            ),
            (
                r"call the payment provider directly from the browser",
                r"payment provider[^.\n]*from the browser is fine",
            ),
            ("payment provider",),
            variant="negated",
        ),
        "preference": Fact(
            "preference",
            (("user", "I like CSS modules better than Tailwind here."),),
            "Drop the CSS modules preference, Tailwind is fine.",
            "Tailwind is acceptable after all (the CSS modules wish was withdrawn).",
            "The user likes CSS modules better than Tailwind.",
            (r"tailwind (is fine|is acceptable|after all)|tailwind[^.\n]*fine",),
            (r"(likes|prefers?)[^.\n]*css modules(?![^.\n]*(withdrawn|drop|revoked))",),
            ("css modules",),
            variant="revoked",
            later=(("user", "Drop the CSS modules preference, Tailwind is fine."),),
        ),
        "decision": Fact(
            "decision",
            (("say", "I'll keep the cart in server sessions rather than localStorage."),),
            "I'll keep the cart in server sessions rather than localStorage.",
            "Cart state lives in the server session; localStorage was ruled out.",
            "I'll keep the cart in localStorage rather than server sessions.",
            (r"server session",),
            (r"localstorage rather than server", r"cart in localstorage"),
            ("localstorage",),
        ),
        "todo": Fact(
            "todo",
            (("user", "TODO: add an e2e test for the coupon flow."),),
            "TODO: add an e2e test for the coupon flow.",
            "Open item: an end-to-end test of applying a coupon.",
            "The e2e test for the coupon flow was added (done).",
            (r"coupon", r"e2e|end-to-end"),
            (r"coupon flow was added|coupon[^\n]*\(done\)",),
            ("coupon",),
        ),
        "request": Fact(
            "request",
            (("user", "Now show the VAT line only for EU shipping addresses."),),
            "Now show the VAT line only for EU shipping addresses.",
            "Current request: the VAT row should appear just when the shipping address is in the EU.",
            "Now show the VAT line for all shipping addresses.",
            (r"vat", r"\beu\b"),
            (r"vat line for all",),
            ("vat",),
        ),
        "previous": Fact(
            "previous",
            (),
            "Feature flags are read from config/flags.yaml.",
            "Flag definitions: config/flags.yaml.",
            "Feature flags are read from config/features.yaml.",
            (r"config/flags\.yaml",),
            (r"config/(?!flags)\w+\.yaml",),
            ("flags.yaml",),
        ),
    }
    return Theme("shopfront", cwd, "the web shop", facts)


def _t5() -> Theme:
    cwd = "/opt/dev/ingest"
    facts = {
        "path": Fact(
            "path",
            (
                ("tool", "read", "pipeline/stages/dedupe.rs", "pub fn dedupe() {}", False),
                ("say", "Deduplication is in pipeline/stages/dedupe.rs."),
            ),
            "Deduplication is in pipeline/stages/dedupe.rs.",
            "The dedup stage is implemented in /opt/dev/ingest/pipeline/stages/dedupe.rs.",
            "Deduplication is in pipeline/stages/filter.rs.",
            (r"pipeline/stages/dedupe\.rs",),
            (r"pipeline/stages/(?!dedupe)\w+\.rs",),
            ("dedupe.rs",),
        ),
        "name": Fact(
            "name",
            (("say", "Records are keyed by `RecordKey::from_envelope`."),),
            "Records are keyed by `RecordKey::from_envelope`.",
            "`RecordKey::from_envelope` builds each record's key.",
            "Records are keyed by `RecordKey::from_payload`.",
            (r"from_envelope",),
            (r"from_payload",),
            ("from_envelope",),
        ),
        "number": Fact(
            "number",
            (("user", "Each worker may use at most 512 MiB of memory."),),
            "Each worker may use at most 512 MiB of memory.",
            "Per-worker memory cap: 512 MiB.",
            "Each worker may use at most 512 GiB of memory.",
            (r"\b512 ?mib\b",),
            (r"\b512 ?(gib|kib|gb|kb)\b", r"\b(?!512\b)\d+ ?mib\b"),
            ("512 mib",),
        ),
        "error": Fact(
            "error",
            (
                (
                    "tool",
                    "bash",
                    "cargo test",
                    "thread 'stages::dedupe::tests::window' panicked at 'index out of bounds: the len is 4 but the index is 4'",
                    True,
                ),
            ),
            "cargo test: thread 'stages::dedupe::tests::window' panicked at 'index out of bounds: the len is 4 but the index is 4'; still failing.",
            "The dedupe window test still panics with an out-of-bounds index (len 4, index 4); not fixed.",
            "The out-of-bounds panic in the dedupe window test was fixed.",
            (r"index out of bounds|out-of-bounds", r"window"),
            (r"(panic|out-of-bounds|out of bounds)[^\n]*was fixed",),
            ("index out of bounds", "out-of-bounds"),
            variant="unfixed",
        ),
        "constraint": Fact(
            "constraint",
            (("user", "Only when the backlog exceeds 10000 messages should you scale to more workers."),),
            "Only when the backlog exceeds 10000 messages should you scale to more workers.",
            "Scale out to extra workers only once the backlog is above 10000 messages.",
            "Scale to more workers whenever the backlog exceeds 1000 messages.",
            (r"10,?000 messages",),
            (r"\b(?!10,?000\b)\d[\d,]* messages",),
            ("10000 messages", "10,000 messages"),
            variant="conditional",
        ),
        "preference": Fact(
            "preference",
            (("user", "I prefer tracing spans to println debugging."),),
            "I prefer tracing spans to println debugging.",
            "Debug with tracing spans, not println, as the user prefers.",
            "I prefer println debugging to tracing spans.",
            (r"tracing spans",),
            (r"prefer\w* println", r"println[^.\n]*(over|rather than|instead of) tracing"),
            ("tracing spans",),
            variant="in force",
        ),
        "decision": Fact(
            "decision",
            (("say", "I'll use a bloom filter instead of an exact hash set for dedupe."),),
            "I'll use a bloom filter instead of an exact hash set for dedupe.",
            "Dedupe relies on a bloom filter; an exact hash set was rejected.",
            "I'll use an exact hash set instead of a bloom filter for dedupe.",
            (r"bloom filter",),
            (r"hash set instead of a bloom", r"use an exact hash set"),
            ("bloom filter",),
        ),
        "todo": Fact(
            "todo",
            (("user", "TODO: expose the dedupe hit rate as a Prometheus metric."),),
            "TODO: expose the dedupe hit rate as a Prometheus metric.",
            "Still to do: publish the dedupe hit ratio to Prometheus.",
            "The dedupe hit rate is already exposed as a Prometheus metric.",
            (r"hit (rate|ratio)", r"prometheus"),
            (r"already exposed",),
            ("prometheus",),
        ),
        "request": Fact(
            "request",
            (("user", "Please make the batch window configurable via INGEST_WINDOW_MS."),),
            "Please make the batch window configurable via INGEST_WINDOW_MS.",
            "Latest ask: the batch window should be set from the INGEST_WINDOW_MS environment variable.",
            "Please make the batch window configurable via INGEST_BATCH_SIZE.",
            (r"ingest_window_ms",),
            (r"configurable via ingest_(?!window_ms)\w+",),
            ("ingest_window_ms",),
        ),
        "previous": Fact(
            "previous",
            (),
            "Kafka topic is ingest.events.v2 on broker kafka-1.lan:9092.",
            "Events come from topic ingest.events.v2 (broker kafka-1.lan:9092).",
            "Kafka topic is ingest.events.v1 on broker kafka-1.lan:9092.",
            (r"ingest\.events\.v2",),
            (r"ingest\.events\.v(?!2)\d",),
            ("ingest.events",),
        ),
    }
    return Theme("ingest", cwd, "the event ingest pipeline", facts)


THEMES: tuple[Theme, ...] = (_t0(), _t1(), _t2(), _t3(), _t4(), _t5())
