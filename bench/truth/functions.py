"""Sentence functions for the truth set: a question, a bundle of asks, an apology or a small-talk remark is no rule,
no progress and no context; a task stated without a request form after an opening remark is the goal.

    python bench/truth/functions.py            # writes tests/fixtures/truth/functions/ (deterministic)
    python bench/truth/functions.py --check    # fails if the committed files differ from a fresh run

Issue 23, after the pi sample session's offline summary listed "Does the Redis path actually work? ..." and "Two
more things: (1) ..." as constraints, "Go ahead." (from "Yes that was me in the other terminal, sorry. Go ahead.")
and "(And yes, that db-0 thing was my old prototype, killed it.)" as done, and "He's out this week." as critical
context. One conversation per theme and format (pi, Claude Code, Codex): tune themes 0-3 (8 sessions), held-out
themes 4-5 (4 sessions) in wording of their own, written and committed before any rule changed. Each session:

- an opening remark, then the task, either stated without a request form ("The invoice export skips lines whose
  tax code is blank.") or asked after the assistant ran a tool to look around before answering the remark;
- a question of fact with a reason after it ("Does the PDF path actually work? the renderer ...") — not a rule;
- a bundle of asks ("Two more things: (1) ..., and (2) ...") next to a real rule ("don't push") — the bundle is
  no rule, the rule is;
- an apology with a go-ahead ("Yes, that was me in the other window, sorry. Carry on.") — no progress;
- a follow-up ask with small talk ("She's on holiday till Monday.") and an aside acknowledging something
  ("(And yes, the stale lockfile was mine, I removed it.)") — neither is context nor progress;
- NEGATIVES that must stay: a rule asked as a question ("Can we keep the existing column order unchanged?" is a
  constraint: a yes/no question asking to keep, avoid or preserve something states a requirement — decided here,
  as implicit.py's `asked` kind does); a real piece of done work the user reports starting with "ok" ("ok, I've
  already rotated the SFTP key for the bank upload myself."); a real task that reads like small talk ("Funny
  thing, the totals on the dashboard are off by a cent again.", which the assistant then fixes);
- the latest ask, cut while its work runs: what is under way.

The key (`functions/key.json`) holds per session its judges: `where` (a section group, `bench_summary_truth.py`'s
FUNCTION_SECTIONS per agent format, or `anywhere`), `expect` (`in` / `out`), `what` (the shape) and `present`
(regexes that must all match the lower-cased text of that group). Claude Code's first section holds both the
goal and the rules, so a rule-side `out` judge is not asked of it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.truth.catalogue import THEMES  # noqa: E402
from bench.truth.regen import run, write_key  # noqa: E402
from sample_sessions._gen import claude_code as cc  # noqa: E402
from sample_sessions._gen import codex as cx  # noqa: E402
from sample_sessions._gen.pi import PiSession  # noqa: E402

OUT = ROOT / "tests" / "fixtures" / "truth" / "functions"
TESTS_OUT = "........................................................................\n72 passed in 3.10s"

# per theme, by hand: the texts and each probe's judge (a regex of the lower-cased summary text)
TEXTS: dict[int, dict[str, Any]] = {
    0: {
        "remark": "Back at it after lunch.",
        "reply": "Welcome back. What should we look at?",
        "task": ("The invoice export skips lines whose tax code is blank.", r"invoice export skips lines"),
        "ask": ("Please make the invoice export keep lines with a blank tax code.", r"keep lines with a blank tax"),
        "file": ("billing/export/invoices.py", "if not line.tax_code:\n    continue", "tax = line.tax_code or ''"),
        "question": (
            "Nice. Does the PDF path actually work? the renderer only runs with wkhtmltopdf installed, so I don't "
            "trust a green suite there.",
            r"pdf path actually work",
        ),
        "check": ("make pdf-smoke", "rendered invoice-smoke.pdf (3 pages)", "The PDF path works: 3 pages rendered."),
        "bundle": (
            "Great. Two more things: (1) a --dry-run flag for the export command so finance can preview it without "
            "writing files, and (2) a line about it in the README. Then commit on a branch `export-fix`, don't push.",
            r"two more things",
            r"don't push",
        ),
        "lock": ("make migrate-check", "database is locked", "Something else holds the database lock; is that you?"),
        "ack": ("Yes, that was me in the other window, sorry. Carry on.", r"carry on"),
        "followup": (
            "Thanks. While you're in there, can you also add the currency column to the CSV? Can we keep the "
            "existing column order unchanged? Priya asked for it. She's on holiday till Monday. (And yes, the stale "
            "lockfile was mine, I removed it.)",
            r"holiday till monday",
            r"stale lockfile was mine",
            r"column order unchanged",
        ),
        "ok_done": ("ok, I've already rotated the SFTP key for the bank upload myself.", r"rotated the sftp key"),
        "task_talk": (
            "Funny thing, the totals on the dashboard are off by a cent again.",
            r"off by a cent",
            ("billing/dashboard/totals.py", "round(total, 2)", "quantize(total)"),
            "The dashboard totals now round half-even like the ledger; off-by-a-cent gone.",
        ),
        "latest": (
            "Last thing: run the full export against October's ledger and tell me the row count.",
            r"october's ledger",
            "python -m billing.export --month 2026-10",
        ),
    },
    1: {
        "remark": "Long day already and it's only ten.",
        "reply": "Sounds like it. What can I help with?",
        "task": ("Tiles at zoom 18 come back blank over the harbour.", r"zoom 18 come back blank"),
        "ask": ("Could you make tiles at zoom 18 render over the harbour again?", r"zoom 18 render over the harbour"),
        "file": ("tiler/render/zoom.py", "MAX_ZOOM = 17", "MAX_ZOOM = 19"),
        "question": (
            "Good. Is the S3 backend actually exercised? moto skips multipart uploads unless the bucket is versioned, "
            "so a passing run proves little.",
            r"s3 backend actually exercised",
        ),
        "check": ("pytest -q tests/test_s3.py -k multipart", "4 passed in 1.2s", "It is: 4 multipart tests run."),
        "bundle": (
            "Perfect. Two more things: (1) a /healthz route for the load balancer so it can probe without a tile "
            "request, and (2) a note in docs/ops.md. Then open a draft PR, do not merge it.",
            r"two more things",
            r"do not merge",
        ),
        "lock": ("make seed-cache", "cache directory is locked by pid 4411", "pid 4411 holds the cache lock; yours?"),
        "ack": ("Yep, my bad, that was my other shell. Keep going.", r"keep going"),
        "followup": (
            "Cheers. Since you're there, can you also cap the render queue at 64 jobs? Could we avoid touching the "
            "public tile URLs? Tom wanted it. He's at a conference all week. (And yes, that old cache folder was "
            "mine, deleted it.)",
            r"conference all week",
            r"old cache folder was mine",
            r"avoid touching the public tile urls",
        ),
        "ok_done": ("ok, I already bumped the CDN cache TTL to one hour on the edge.", r"cdn cache ttl"),
        "task_talk": (
            "Weird, the attribution text overlaps the scale bar on small screens.",
            r"attribution text overlaps",
            ("tiler/static/map.css", "bottom: 4px;", "bottom: 28px;"),
            "Moved the attribution above the scale bar; no overlap at 360px.",
        ),
        "latest": (
            "Final one: re-render the harbour tiles at zoom 18 and tell me how many were written.",
            r"re-render the harbour tiles",
            "python -m tiler.render --bbox harbour --zoom 18",
        ),
    },
    2: {
        "remark": "Finally some quiet in the office.",
        "reply": "Nice! What are we working on?",
        "task": (
            "The bot answers refund questions in English even when the user writes German.",
            r"answers refund questions in english",
        ),
        "ask": (
            "Please make the bot answer refund questions in the user's language.",
            r"answer refund questions in the user's language",
        ),
        "file": ("bot/intents/refund.py", "lang = 'en'", "lang = detect(message)"),
        "question": (
            "Cool. Does the fallback model actually get called? the router only switches when latency passes 2 s, "
            "so the tests may never hit it.",
            r"fallback model actually get called",
        ),
        "check": ("pytest -q tests/test_router.py -k fallback", "2 passed in 0.4s", "Yes: both fallback tests run."),
        "bundle": (
            "Nice work. Two more things: (1) a metric for refunds per language so support can watch it without "
            "reading logs, and (2) a short entry in the runbook. Then push to a branch `refund-lang`, no PR yet.",
            r"two more things",
            r"no pr yet",
        ),
        "lock": (
            "make train-intents",
            "model file busy: in use by another process",
            "Another process has the model file open; is someone training?",
        ),
        "ack": ("Ah yes, that was me training in another tab, apologies. Go on.", r"go on"),
        "followup": (
            "Thanks! While you're at it, can you also log the detected language on each turn? Can we keep the "
            "webhook payload exactly as it is? Mia asked for it. She's moving house this week. (And yes, the "
            "half-trained model was mine, scrapped it.)",
            r"moving house this week",
            r"half-trained model was mine",
            r"webhook payload exactly as it is",
        ),
        "ok_done": ("ok, I already renewed the Zendesk API token this morning.", r"renewed the zendesk api token"),
        "task_talk": (
            "Oh, the typing indicator keeps spinning after the bot has answered.",
            r"typing indicator keeps spinning",
            ("bot/web/typing.ts", "stopTyping()", "stopTyping(); clearTimeout(timer)"),
            "The typing indicator now stops when the answer arrives.",
        ),
        "latest": (
            "One last thing: replay yesterday's German refund chats and tell me how many got German replies.",
            r"replay yesterday's german refund chats",
            "python -m bot.replay --day yesterday --lang de",
        ),
    },
    3: {
        "remark": "What a week it has been.",
        "reply": "Hope it gets calmer! What's up?",
        "task": ("The staging plan wants to recreate the NAT gateway every run.", r"recreate the nat gateway"),
        "ask": ("Please stop the staging plan from recreating the NAT gateway.", r"stop the staging plan from"),
        "file": ("terraform/envs/staging/network.tf", "tags = local.tags", "tags = merge(local.tags, {})"),
        "question": (
            "Good. Does the drift check actually run in CI? it only triggers on the nightly schedule, so a green PR "
            "says nothing.",
            r"drift check actually run in ci",
        ),
        "check": ("gh workflow view drift --yaml | grep -c schedule", "1", "It runs nightly only, as you said."),
        "bundle": (
            "Thanks. Two more things: (1) an output for the NAT gateway id so the VPN module can read it without a "
            "data lookup, and (2) a line in the README. Then commit to `nat-fix`, never apply to prod.",
            r"two more things",
            r"never apply to prod",
        ),
        "lock": (
            "terraform plan -out staging.plan",
            "Error acquiring the state lock",
            "The state is locked by another run; is that yours?",
        ),
        "ack": ("Yes, that was my plan in the other terminal, sorry about that. Continue.", r"continue\."),
        "followup": (
            "Great. While you're in there, can you also tag the NAT gateway with the cost centre? Can we leave the "
            "prod workspace untouched? Sam asked for it. He's off sick today. (And yes, that dangling lock was "
            "mine, released it.)",
            r"off sick today",
            r"dangling lock was mine",
            r"leave the prod workspace untouched",
        ),
        "ok_done": ("ok, I already imported the old Route53 zone into state myself.", r"imported the old route53"),
        "task_talk": (
            "Huh, the bastion host still allows SSH from anywhere.",
            r"bastion host still allows ssh",
            ("terraform/modules/bastion/main.tf", 'cidr_blocks = ["0.0.0.0/0"]', "cidr_blocks = var.office_cidrs"),
            "The bastion now allows SSH from the office ranges only.",
        ),
        "latest": (
            "Last bit: run the staging plan again and tell me how many resources change.",
            r"run the staging plan again",
            "terraform plan -var-file=staging.tfvars",
        ),
    },
    # held out: other wording, written before any rule changed, never tuned on
    4: {
        "remark": "Just survived the standup.",
        "reply": "Congrats! What do you need today?",
        "task": ("Checkout loses the coupon when the user goes back to the cart.", r"checkout loses the coupon"),
        "ask": ("Can you make the coupon survive going back to the cart?", r"coupon survive going back"),
        "file": ("web/src/checkout/coupon.ts", "state.coupon = null", "state.coupon = state.coupon ?? null"),
        "question": (
            "Neat. Are the Stripe webhooks really verified? the test client signs nothing unless STRIPE_SECRET is "
            "set, so the suite could pass either way.",
            r"stripe webhooks really verified",
        ),
        "check": ("npm test -- webhooks.verify", "Tests: 5 passed, 5 total", "They are: 5 signature tests ran."),
        "bundle": (
            "Lovely. A couple of extras: first, an analytics event when a coupon fails so marketing can see it "
            "without SQL; second, a changelog line. Then branch `coupon-fix` and leave main alone.",
            r"couple of extras",
            r"leave main alone",
        ),
        "lock": (
            "npm run db:reset",
            "EBUSY: resource busy or locked, database.sqlite",
            "The dev database is busy; do you have a server running?",
        ),
        "ack": ("Oops, yes, my dev server was still up, my fault. Proceed.", r"proceed"),
        "followup": (
            "Merci. While you're on it, could you also show the discount on the order summary? Could we not rename "
            "any of the cart events? Lea requested it. She's back from parental leave next month. (Oh and the "
            "orphaned sqlite file was mine, gone now.)",
            r"parental leave next month",
            r"orphaned sqlite file was mine",
            r"not rename any of the cart events",
        ),
        "ok_done": (
            "ok so I already switched the payment sandbox to the new Stripe account.",
            r"switched the payment sandbox",
        ),
        "task_talk": (
            "Hm, the price filter resets itself whenever you sort by rating.",
            r"price filter resets itself",
            ("web/src/catalog/filters.ts", "setFilters({})", "setFilters((f) => f)"),
            "Sorting keeps the price filter now.",
        ),
        "latest": (
            "Last request: run the checkout e2e suite and tell me which steps are slow.",
            r"checkout e2e suite",
            "npx playwright test checkout",
        ),
    },
    5: {
        "remark": "Coffee machine is broken again, great start.",
        "reply": "Oh no! Let's at least get the code working. What's first?",
        "task": ("Events with a null session id end up in the dead-letter queue.", r"null session id end up"),
        "ask": ("Would you route events with a null session id to the main topic?", r"route events with a null"),
        "file": ("ingest/router.py", "if event.session_id is None:\n    return DLQ", "sid = event.session_id or ''"),
        "question": (
            "Sweet. Is the Kafka path genuinely tested? the embedded broker drops compression unless lz4 is present, "
            "so green tests mean little.",
            r"kafka path genuinely tested",
        ),
        "check": ("pytest -q tests/test_kafka.py", "6 passed in 2.3s", "Yes, 6 Kafka tests ran with lz4."),
        "bundle": (
            "Excellent. Also a pair of follow-ups: one, a counter of rerouted events so on-call can see it without "
            "grepping, and two, a README paragraph. Afterwards commit to `null-sid`, don't tag a release.",
            r"pair of follow-ups",
            r"don't tag a release",
        ),
        "lock": (
            "make replay-dlq",
            "lock held by consumer group ingest-replay",
            "The replay consumer group is held by someone else; you?",
        ),
        "ack": ("Right, that was my replay from this morning, my apologies. Go for it.", r"go for it"),
        "followup": (
            "Ta. Since you're in the router anyway, can you also drop events older than 30 days? Could we keep the "
            "Avro schema backward compatible? Omar wants it. He's flying to Lisbon tomorrow. (And yes, the stuck "
            "consumer was mine, killed it.)",
            r"flying to lisbon tomorrow",
            r"stuck consumer was mine",
            r"avro schema backward compatible",
        ),
        "ok_done": (
            "ok, I already raised the partition count on the staging topic to 12.",
            r"raised the partition count",
        ),
        "task_talk": (
            "Interesting, the batch writer logs every flush at WARN level.",
            r"logs every flush at warn",
            ("ingest/writer.py", "log.warning('flush", "log.debug('flush"),
            "Flushes log at DEBUG now.",
        ),
        "latest": (
            "Final thing: replay the dead-letter queue and tell me how many events got through.",
            r"replay the dead-letter queue",
            "python -m ingest.replay --from dlq",
        ),
    },
}

# (theme, format, opening): `statement` states the task after a remark; `tool_first` has the assistant look around
# with a tool before it answers the remark, then the user asks the task
PLAN: tuple[tuple[str, int, str, str], ...] = (
    ("tune", 0, "pi", "statement"),
    ("tune", 0, "claude_code", "tool_first"),
    ("tune", 1, "codex", "statement"),
    ("tune", 1, "pi", "tool_first"),
    ("tune", 2, "pi", "statement"),
    ("tune", 2, "codex", "tool_first"),
    ("tune", 3, "claude_code", "statement"),
    ("tune", 3, "pi", "tool_first"),
    ("heldout", 4, "pi", "statement"),
    ("heldout", 4, "codex", "tool_first"),
    ("heldout", 5, "claude_code", "statement"),
    ("heldout", 5, "pi", "tool_first"),
)


class Writer:
    """One conversation in any of the three formats: user text, assistant text, a read, a command, an edit."""

    def __init__(self, fmt: str, cwd: str, seed: int) -> None:
        self.fmt = fmt
        self.cwd = cwd
        start = "2026-12-02T09:00:00.000Z"
        if fmt == "pi":
            self.pi = PiSession(seed=seed, start=start, cwd=cwd)
        elif fmt == "claude_code":
            cc.CWD = cwd
            self.cc = cc.ClaudeCodeSession(seed=seed, start=start)
        else:
            cx.CWD = cwd
            self.cx = cx.Rollout(seed=seed, start=start)
            meta = {"id": f"0199cc00-0000-4000-9000-{seed:012d}", "timestamp": start, "cwd": cwd}
            meta |= {"originator": "codex_cli_rs", "cli_version": "0.58.0", "instructions": None}
            self.cx.emit("session_meta", meta | {"source": "cli", "model_provider": "openai"}, pause=(0, 0))

    def user(self, text: str) -> None:
        if self.fmt == "pi":
            self.pi.user(text)
        elif self.fmt == "claude_code":
            self.cc.user(text)
        else:
            self.cx.user(text)

    def say(self, text: str) -> None:
        if self.fmt == "pi":
            self.pi.say(text)
        elif self.fmt == "claude_code":
            self.cc.assistant([{"type": "text", "text": text}])
        else:
            self.cx.say(text)

    def read(self, path: str, content: str) -> None:
        if self.fmt == "pi":
            self.pi.step("read", {"path": path}, content)
        elif self.fmt == "claude_code":
            self.cc.tool("Read", {"file_path": f"{self.cwd}/{path}"}, content)
        else:
            self.cx.shell(f"cat {path}", content)

    def run(self, command: str, output: str, *, error: bool = False) -> None:
        if self.fmt == "pi":
            self.pi.step("bash", {"command": command}, output, error=error)
        elif self.fmt == "claude_code":
            self.cc.tool("Bash", {"command": command, "description": "run it"}, output, error=error)
        else:
            self.cx.shell(command, output, code=1 if error else 0)

    def edit(self, path: str, old: str, new: str) -> None:
        if self.fmt == "pi":
            self.pi.step(
                "edit", {"path": path, "oldText": old, "newText": new}, f"Successfully replaced text in {path}."
            )
        elif self.fmt == "claude_code":
            self.cc.tool(
                "Edit",
                {"file_path": f"{self.cwd}/{path}", "old_string": old, "new_string": new},
                f"The file {self.cwd}/{path} has been updated.",
            )
        else:
            self.cx.patch(f"*** Begin Patch\n*** Update File: {path}\n-{old}\n+{new}\n*** End Patch\n", [f"M {path}"])

    def write(self, path: Path) -> None:
        target = str(path)
        if self.fmt == "pi":
            self.pi.write(target)
        elif self.fmt == "claude_code":
            self.cc.write(target)
        else:
            self.cx.write(target)


def conversation(w: Writer, t: dict[str, Any], opening: str) -> None:
    file, old, new = t["file"]
    w.user(t["remark"])
    if opening == "statement":
        w.say(t["reply"])
        w.user(t["task"][0])
    else:  # the assistant looks around before it answers the remark
        w.run("git status --short", "")
        w.say(t["reply"])
        w.user(t["ask"][0])
    w.read(file, old + "\n")
    w.edit(file, old, new)
    w.run("pytest -q", TESTS_OUT)
    w.say(f"Changed {file}; the suite passes.")
    w.user(t["question"][0])
    command, output, answer = t["check"]
    w.run(command, output)
    w.say(answer)
    w.user(t["bundle"][0])
    command, output, question = t["lock"]
    w.run(command, output, error=True)
    w.say(question)
    w.user(t["ack"][0])
    w.run(command, "ok")
    w.run("git commit -am 'wip'", "[branch 1a2b3c4] wip\n 2 files changed")
    w.say("Done: both items are in and committed.")
    w.user(t["followup"][0])
    w.read(file, new + "\n")
    w.edit(file, new, new + "  # extended")
    w.run("pytest -q", TESTS_OUT)
    w.say("Added it; the suite passes.")
    w.user(t["ok_done"][0])
    w.say("Noted, thanks.")
    talk, _judge, (talk_file, talk_old, talk_new), talk_done = t["task_talk"]
    w.user(talk)
    w.read(talk_file, talk_old + "\n")
    w.edit(talk_file, talk_old, talk_new)
    w.say(talk_done)
    latest, _judge, command = t["latest"]
    w.user(latest)
    w.run(command, "...")  # cut while it runs: the latest ask is under way


def judges(t: dict[str, Any], fmt: str, opening: str) -> list[dict[str, Any]]:
    _task_text, task_judge = t["task"] if opening == "statement" else t["ask"]
    out = [
        {
            "what": "task stated after a remark" if opening == "statement" else "task after a tool-first reply",
            "where": "goal",
            "expect": "in",
            "present": [task_judge],
        },
        {"what": "opening remark", "where": "goal", "expect": "out", "present": [_literal(t["remark"])]},
        {"what": "real rule next to a bundle", "where": "rules", "expect": "in", "present": [t["bundle"][2]]},
        {"what": "ack/apology as progress", "where": "done", "expect": "out", "present": [t["ack"][1]]},
        {"what": "aside acknowledging as progress", "where": "done", "expect": "out", "present": [t["followup"][2]]},
        {"what": "small talk as context", "where": "context", "expect": "out", "present": [t["followup"][1]]},
        {"what": "NEG rule asked as a question", "where": "rules", "expect": "in", "present": [t["followup"][3]]},
        {"what": "NEG done item starting with ok", "where": "anywhere", "expect": "in", "present": [t["ok_done"][1]]},
        {
            "what": "NEG task that reads like small talk",
            "where": "anywhere",
            "expect": "in",
            "present": [t["task_talk"][1]],
        },
        {"what": "latest ask under way", "where": "under_way", "expect": "in", "present": [t["latest"][1]]},
    ]
    if fmt != "claude_code":  # its first section holds the goal and the rules together
        out += [
            {"what": "question as a rule", "where": "rules", "expect": "out", "present": [t["question"][1]]},
            {"what": "bundle of asks as a rule", "where": "rules", "expect": "out", "present": [t["bundle"][1]]},
        ]
    return out


def _literal(text: str) -> str:

    return re.escape(text.lower().rstrip(".!?"))


def sessions() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for n, (split, theme_index, fmt, opening) in enumerate(PLAN):
        theme = THEMES[theme_index]
        name = f"function-{split}-{n:02d}-{fmt}-{theme.name}"
        out.append(
            {
                "id": name,
                "split": split,
                "format": fmt,
                "theme": theme_index,
                "opening": opening,
                "seed": 5000 + n,
                "file": f"sessions/{name}.jsonl",
                "judges": judges(TEXTS[theme_index], fmt, opening),
            }
        )
    return out


def build(out: Path) -> None:
    (out / "sessions").mkdir(parents=True, exist_ok=True)
    specs = sessions()
    for spec in specs:
        theme = THEMES[spec["theme"]]
        w = Writer(spec["format"], theme.cwd, spec["seed"])
        conversation(w, TEXTS[spec["theme"]], spec["opening"])
        w.write(out / spec["file"])
    write_key(
        out, "Sentence functions (questions, bundles, apologies, small talk); see bench/truth/functions.py.", specs
    )


def main() -> int:
    return run(__doc__ or "", OUT, build)


if __name__ == "__main__":
    sys.exit(main())
