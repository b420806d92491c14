"""The implicit facts' fifth round: eight held-out projects, in pi, Claude Code and Codex format.

Written by hand, as rounds 1-4 (implicit_cases.py describes the six implicit kinds: `concluded`,
`learnt`, `measured`, `asked`, `role`, `request`; implicit4_cases.py the ordinary `stated`, `todo`
and `detail`), in themes and wordings of their own, plus one more ordinary kind: `replaced`, a rule
the user set and later replaced by another ("actually, …"): the later rule is the fact, and a
summary that states the earlier one without the later one anywhere contradicts it. The which-way
question is put as "gut feeling: X or Y?", "which makes more sense to you?", "would you go per X
or per Y? gut call is fine", "what would a sensible person do here?", "weigh them up for me", "if
you had to bet", "I genuinely can't decide, you choose", "which is less trouble long term?"; the
failing command runs out of file descriptors, reads a mislabelled spreadsheet, runs a script with
CRLF line endings, opens a serial port another program holds, runs a test in the wrong time zone,
imports a file by the wrong letter case, pushes behind the remote, starts a router without its
prepared map; the rule asked as a question is "am I right that we never need to …?", "any
objection to leaving …?", "I'd rather X didn't change, possible?", "I assume X doesn't need
editing for this?", "let's not go near X, agreed?", "nothing on X needs to change, I hope?", "is it
at all possible to leave X untouched?", "please tell me we don't have to touch X".

The judges ask for each fact's function, not the words around it (as round 4's do). The good
summaries are written by writers of different habits: terse (bowlingleague, seedbank, snowplow:
fragments, arrows, abbreviations), long-form prose (dentalrecall, kilnlog, cinemaseats: whole
sentences with their reasons), in between (tollbridge, escaperoom). The bad ones are hasty or
stale: several copy much of the session's own words (the which-way question, the failing command,
the rule the user later replaced) while getting the facts wrong.

Every case is held out: written and committed blind (no audit code read, the audit not run on
them), and never tuned on. The sessions start on Thu 3 Dec 2026 (relative dates resolve from it).
"""

from __future__ import annotations

from bench.truth.implicit4_cases import WEIGHTS4, kept
from bench.truth.implicit_cases import Case, listing

# round 4's kinds, and a replaced rule on catalogue.WEIGHTS' constraint scale
WEIGHTS5 = WEIGHTS4 | {"replaced": 3.0}
KINDS5 = tuple(WEIGHTS5)

_NO_CHANGE = (
    r"(leav\w*|left|keep\w*|stay\w*|remain\w*|carr\w* on)[^.\n]{0,30}(alone|as.(it |they )?(is|are)|untouched|unchanged"
    r"|the same)|frozen|off.limits|out of scope|hands off|unchanged|untouched|as.is|must not (be )?(chang|touch|edit)\w*"
    r"|as (it|they) (is|are|stands?)|(don'?t|do not|not|never|avoid|no|without|n'?t)( need\w*( to)?| have to)? "
    r"(touch|chang|edit|modif|alter|go near)\w*"
    r"|no (changes?|edits?)|read.only"
)


def role(file: str, does: str) -> tuple[list[str], list[str]]:
    """The file named with what it does on the same line, in either order."""
    return [rf"{file}[^\n]{{0,200}}({does})|({does})[^\n]{{0,200}}{file}"], []


def replaced(new: str, old: str) -> tuple[list[str], list[str]]:
    """The later rule kept; the earlier one stated with the later one nowhere in the summary is a contradiction."""
    return [new], [rf"\A(?![\s\S]*({new}))[\s\S]*({old})"]


HELD_OUT: list[Case] = [
    {
        "name": "dentalrecall",
        "format": "pi",
        "cwd": "/home/dev/dentalrecall",
        "events": [
            (
                "user",
                "The practice wants our recall reminders to actually reach patients who are due for a check-up. Gut "
                "feeling: text messages through the SMS gateway, or plain email?",
            ),
            ("say", "Let me see how patients are picked first."),
            (
                "tool",
                "read",
                "recall/scheduler.py",
                "def due(patients, today):\n    return [p for p in patients\n"
                "            if months_since(p.last_checkup, today) > 6 and not p.next_booking]\n",
                False,
            ),
            (
                "say",
                "recall/scheduler.py decides who gets a reminder: every patient whose last check-up was more than six "
                "months ago and who has nothing booked.",
            ),
            ("user", "Send the reminders from reception@smiledental.example."),
            (
                "user",
                "Am I right that we never need to write to the practice-management database? The vendor voids the "
                "support contract if anything but their client writes to it.",
            ),
            ("user", "Never put the reason for the visit in a reminder, only the date and the practice's name."),
            ("tool", "bash", "ls -la templates/", listing("tpl"), False),
            ("user", "How many patients are overdue right now?"),
            ("tool", "bash", "python -m recall.count --overdue", "overdue: 1184", False),
            ("say", "That's everyone past six months with nothing booked, as of this morning."),
            ("user", "So, texts or email?"),
            (
                "say",
                "Email first, with a text only for patients who have no email address on file. Nine in ten patients "
                "gave an address, each text costs the practice 6p, and the ones without an address are exactly who "
                "texts are for.",
            ),
            (
                "user",
                "The first batch should go out on the 14th. Eventually we'd like patients to confirm by replying YES, "
                "but that's for later.",
            ),
            ("user", "Send a dry run of the whole overdue list to the test inbox."),
            (
                "tool",
                "bash",
                "python -m recall.send --dry-run --to test@smiledental.example",
                "OSError: [Errno 24] Too many open files\n  at smtplib.SMTP.__init__ (recall/mailer.py:31)",
                True,
            ),
            (
                "say",
                "The mailer opens a new SMTP connection for every patient and never closes them, so a list this long "
                "runs out of file handles; it has to open one connection and reuse it for the whole batch.",
            ),
            (
                "user",
                "Actually, send them from noreply@smiledental.example instead, reception's inbox fills up with "
                "bounces.",
            ),
            (
                "user",
                "Now write the email template in templates/recall.html with the practice logo and a link to the "
                "online booking page.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"e.?mail[^\n]{0,160}(rather than|instead of|over (sms|text)|not (sms|text)|(sms|texts?)\b[^\n]{0,80}"
                    r"(only|fallback|fall back|cost|6 ?p|pence|without (an )?(e.?mail )?address|no (e.?mail )?address))"
                ],
                [
                    r"(go|going|went|stick\w*) with (sms|texts?)\b|(sms|texts?) (for|to) (all|every)|(sms|texts?)"
                    r"[^.\n]{0,20}(chosen|decided|wins)|chose (sms|texts?)"
                ],
            ),
            "learnt": (
                [
                    r"(one|a single|single|same|shared) (smtp )?connection|reus\w*[^.\n]{0,30}connection|connection"
                    r"[^.\n]{0,40}reus|close[sd]? (each|every|the) connection"
                ],
                [],
            ),
            "measured": ([r"1[,. ]?184|1\.2 ?k|(about|around|roughly|~|some|nearly) ?1[,. ]?200"], []),
            "asked": (
                [
                    kept(
                        r"practice.management|pms|practice (db|database)|vendor'?s? (db|database)",
                        _NO_CHANGE + r"|(never|no|not|n'?t|without)[^.\n]{0,20}writ\w*|only (read|reads)",
                    )
                ],
                [r"(mark|flag|record|log|stor|sav)\w* [^.\n]{0,40}(in|into) the (practice.management|pms|vendor'?s?)"],
            ),
            "role": role(
                r"scheduler\.py",
                r"(who|which patients?)[^.\n]{0,40}(due|remind|get)|(six|6) months|6 ?mo\b|overdue patients"
                r"|nothing (booked|scheduled)|no (next |future )?(booking|appointment)",
            ),
            "request": ([r"recall\.html|email template|e-mail template", r"logo", r"book"], []),
            "stated": (
                [
                    r"reason|treatment|procedure|diagnos|clinical|why[^.\n]{0,30}(com|visit|appointment)",
                    r"(never|no|not|n'?t|without|omit|leave out|left out|only)",
                ],
                [],
            ),
            "todo": ([r"\byes\b|reply|confirm"], []),
            "detail": ([r"\b14(th)?\b|fourteenth"], []),
            "replaced": replaced(r"no.?reply@|no.?reply address|no-reply", r"reception@|from reception"),
        },
        "good": {
            "goal": "The dental practice wants its recall reminders to reach the patients who are due for a check-up, "
            "and the work so far has been about choosing the channel and getting a full batch to send.",
            "rules": [
                "Nothing may ever be written to the practice-management system's database: the vendor voids the "
                "support contract if anything other than its own client writes there, so the reminders only read "
                "from it.",
                "A reminder never mentions why the patient is coming in; it carries the appointment date and the "
                "practice's name and nothing else.",
                "Reminders are sent from the noreply@ address, not from reception's, because reception's mailbox was "
                "filling up with bounces.",
            ],
            "done": [
                "Counted the overdue patients: 1,184 of them this morning, i.e. everyone more than six months past a "
                "check-up with nothing booked.",
            ],
            "errors": [
                "The dry run to the test inbox died with 'Too many open files' (errno 24), because the mailer opened "
                "a fresh SMTP connection per patient and never closed any of them. The remedy is to open a single "
                "connection and reuse it for the whole batch.",
            ],
            "decisions": [
                "Email is the main channel and a text message is sent only to patients with no email address on "
                "file: about 90% of patients have given an address, every text costs the practice 6p, and the "
                "patients without an address are the ones texts are for.",
            ],
            "now": "Writing the email template, templates/recall.html, with the practice's logo and a link to the "
            "online booking page.",
            "next": [
                "Fix the mailer to share one SMTP connection and repeat the dry run.",
                "The first real batch goes out on Monday 14 December.",
                "Later, not now: let patients confirm by replying YES.",
            ],
            "files": [
                "recall/scheduler.py is the piece that decides who is due a reminder: anyone whose last check-up was "
                "over six months ago and who has no future appointment.",
            ],
        },
        "bad": {
            "goal": "The practice wants our recall reminders to actually reach patients who are due for a check-up. "
            "Gut feeling: text messages through the SMS gateway, or plain email?",
            "rules": ["Send the reminders from reception@smiledental.example."],
            "done": ["Ran python -m recall.count --overdue."],
            "errors": ["python -m recall.send --dry-run failed: OSError: [Errno 24] Too many open files."],
            "decisions": ["Going with SMS for every patient, it is read faster than email."],
            "now": "Write the email template in templates/recall.html with the practice logo and a link to the online "
            "booking page.",
            "next": ["Send the first batch."],
        },
    },
    {
        "name": "bowlingleague",
        "format": "pi",
        "cwd": "/home/dev/bowlingleague",
        "events": [
            (
                "user",
                "The league standings page keeps getting complaints. Points or pinfall for ranking the teams: which "
                "makes more sense to you?",
            ),
            ("say", "I'll read how the table is built now."),
            (
                "tool",
                "read",
                "league/standings.py",
                "def table(sheets):\n    pts = total_points(sheets)\n"
                "    return sorted(pts, key=lambda t: (-t.points, head_to_head(t)))\n",
                False,
            ),
            (
                "say",
                "league/standings.py builds the weekly league table: it adds up each team's match points from the "
                "score sheets and breaks ties by head-to-head results.",
            ),
            ("user", "Publish the table as a PDF on the club site."),
            (
                "user",
                "Any objection to leaving the handicap formula exactly as it is? The committee voted on it.",
            ),
            ("user", "Scores are whole pins, no fractions anywhere."),
            ("tool", "bash", "ls -la sheets/", listing("sheet"), False),
            ("user", "What's the best series anyone has bowled this season?"),
            ("tool", "bash", "sqlite3 league.db 'select max(series) from games'", "742", False),
            ("say", "That's the highest three-game series so far this season."),
            ("user", "Points or pinfall, then?"),
            (
                "say",
                "Points. The league rules rank on match points and use pinfall only as the second tie-break, after "
                "head-to-head; ranking on pinfall would reward teams that happened to bowl more games.",
            ),
            (
                "user",
                "League night is Wednesday at 7:30 pm. At some point a page with each bowler's average, not this week.",
            ),
            ("user", "Import week 12's score sheet."),
            (
                "tool",
                "bash",
                "python import_sheets.py sheets/week12.xlsx",
                "zipfile.BadZipFile: File is not a zip file",
                True,
            ),
            (
                "say",
                "week12.xlsx is really an old binary .xls file with the wrong extension, so it has to be converted to "
                "a real .xlsx first, with `soffice --headless --convert-to xlsx`, before the importer can read it.",
            ),
            ("user", "Actually, scrap the PDF and publish the table as a plain HTML page, people read it on phones."),
            ("user", "Now make standings.py use pinfall as the second tie-break, after head-to-head."),
        ],
        "facts": {
            "concluded": (
                [
                    r"points[^\n]{0,120}(rather than|instead of|over pinfall|not (by )?pinfall|pinfall[^\n]{0,60}"
                    r"(tie.?break|more games|reward))|(rank|sort)\w* (on|by) (match )?points"
                ],
                [r"(go|going|went|stick\w*) with pinfall|pinfall[^.\n]{0,20}(chosen|decided|wins)|chose pinfall"],
            ),
            "learnt": ([r"convert|soffice|libre ?office|re.?save|real \.?xlsx|\bxls\b|\.xls\b|binary excel"], []),
            "measured": ([r"\b742\b"], []),
            "asked": (
                [kept(r"handicap", _NO_CHANGE)],
                [r"(chang|tweak|adjust|updat|rewrit|fix)\w* (the )?handicap|new handicap"],
            ),
            "role": role(
                r"standings\.py",
                r"(builds?|makes?|computes?|generat\w*)[^.\n]{0,20}table|weekly table|adds? up|sums?\b[^.\n]{0,20}"
                r"(points|pts)|totals?",
            ),
            "request": ([r"standings", r"pinfall", r"tie.?break|tiebreak"], []),
            "stated": ([r"whole pins|no fractions|\bintegers?|\bints?\b|no decimals|whole numbers"], []),
            "todo": ([r"average|avg", r"bowler|player|individual|per.person"], []),
            "detail": ([r"wednesday|\bwed\b", r"7[:.]30|19[:.]30"], []),
            "replaced": replaced(r"html", r"\bpdf\b"),
        },
        "good": {
            "goal": "Fix league standings (complaints).",
            "rules": [
                "Handicap formula: hands off (committee-voted).",
                "Whole pins only, no decimals.",
                "Table published as HTML (not PDF) - read on phones.",
            ],
            "done": ["Best series this season: 742."],
            "errors": [
                "week12 import → BadZipFile; file is legacy .xls renamed → convert w/ LibreOffice headless 1st."
            ],
            "decisions": [
                "Rank by match points, not pinfall (league rules; pinfall = 2nd tie-break, favours teams w/ "
                "more games)."
            ],
            "now": "standings.py: pinfall as tie-break #2 after H2H.",
            "next": ["Re-import wk 12 after conversion.", "Later: per-bowler averages page."],
            "files": ["league/standings.py - weekly table: sums match pts from sheets, ties → head-to-head."],
            "context": ["League night Wed 19:30."],
        },
        "bad": {
            "goal": "The league standings page keeps getting complaints. Points or pinfall for ranking the teams?",
            "rules": ["Publish the table as a PDF on the club site."],
            "done": ["Read league/standings.py.", "Ran python import_sheets.py sheets/week12.xlsx (BadZipFile)."],
            "decisions": ["Go with pinfall, it is fairer."],
            "now": "Make standings.py use pinfall as the second tie-break, after head-to-head.",
            "next": ["Adjust the handicap so new teams catch up."],
        },
    },
    {
        "name": "seedbank",
        "format": "pi",
        "cwd": "/home/dev/seedbank",
        "events": [
            (
                "user",
                "The seed library wants to track germination tests. Would you record a test per packet or per lot? "
                "Gut call is fine.",
            ),
            ("say", "First a look at how packets are stored."),
            (
                "tool",
                "read",
                "inventory/lots.py",
                "class Packet(Model):\n    barcode = CharField(unique=True)\n    lot = ForeignKey(Lot)\n"
                "class Lot(Model):\n    year = IntegerField(); grower = CharField(); variety = CharField()\n",
                False,
            ),
            (
                "say",
                "inventory/lots.py ties every packet's barcode to the harvest lot it came from, with the lot's year, "
                "grower and variety.",
            ),
            ("user", "Store the germination rate as a fraction between 0 and 1."),
            (
                "user",
                "I'd rather the barcode labels didn't change, possible? We printed three thousand of them.",
            ),
            ("user", "Weights in grams, always."),
            ("tool", "bash", "ls -la photos/", listing("seed"), False),
            ("user", "How many lots are older than five years?"),
            (
                "tool",
                "bash",
                'psql seeds -c "select count(*) from lots where year < 2021"',
                " count\n-------\n   217\n(1 row)",
                False,
            ),
            ("say", "There's the number of lots harvested before 2021."),
            ("user", "Per packet or per lot, then?"),
            (
                "say",
                "Per lot. Every packet in a lot comes from the same harvest, so one test of twenty seeds speaks for "
                "all of them, and testing each packet would use up the seed we lend out.",
            ),
            (
                "user",
                "The seed fridge runs at 4 °C, note that down. Someday we want a public catalogue page, not now.",
            ),
            ("user", "Print the labels for the new lots."),
            (
                "tool",
                "bash",
                "./scripts/labels.sh new",
                "/usr/bin/env: 'bash\\r': No such file or directory",
                True,
            ),
            (
                "say",
                "labels.sh was saved with Windows line endings, so the shell looks for a program called 'bash\\r'; "
                "converting it to Unix line endings (dos2unix) fixes it.",
            ),
            ("user", "Actually, keep the rate as a percentage, the volunteers find fractions confusing."),
            ("user", "Now add a germ_tests table keyed on the lot, with the test date and the number of seeds sown."),
        ],
        "facts": {
            "concluded": (
                [
                    r"(per|by|each|one per) (lot|batch)[^\n]{0,120}(rather than|instead of|not (per |each )?packet"
                    r"|over (per )?packet|same harvest|use[sd]? up|uses up|waste|speaks for)"
                ],
                [
                    r"(go|going|went|stick\w*) with (per.)?packets?|per.packet[^.\n]{0,20}(chosen|decided|wins)"
                    r"|test every packet separately"
                ],
            ),
            "learnt": (
                [
                    r"dos2unix|unix line endings|\blf\b|line endings?[^\n]{0,40}(convert|fix|strip)|crlf|windows line endings"
                ],
                [],
            ),
            "measured": ([r"\b217\b"], []),
            "asked": (
                [kept(r"barcode|labels?", _NO_CHANGE)],
                [r"(reprint|re-print|regenerat|renumber)\w* (the )?(barcode|label)|new barcodes?"],
            ),
            "role": role(
                r"lots\.py",
                r"barcode[^\n]{0,60}(lot|harvest)|(lot|harvest)[^\n]{0,60}barcode|packet\w*[^\n]{0,20}"
                r"(→|->|to) (its )?(harvest )?lot",
            ),
            "request": ([r"germ_tests|germination tests? table", r"lot", r"date", r"sown|seeds"], []),
            "stated": ([r"grams|\bg\b"], []),
            "todo": ([r"catalog", r"public"], []),
            "detail": ([r"4 ?°? ?c\b|39 ?°? ?f\b|4 degrees"], []),
            "replaced": replaced(r"percent|%", r"fraction|0 ?(to|-|–|and) ?1\b|0\.\.1"),
        },
        "good": {
            "goal": "Germination-test tracking for the seed library.",
            "rules": [
                "Barcode labels stay as-is (~3k printed).",
                "Grams only.",
                "Germ. rate stored as % (not 0-1 fractions; volunteers).",
                "labels.sh had CRLF endings → run dos2unix before using it.",
            ],
            "done": ["217 lots pre-2021 (>5 yrs)."],
            "errors": ["labels.sh: `bash\\r` not found → CRLF."],
            "decisions": [
                "1 test per lot, not per packet: same harvest, a 20-seed test covers all; per-packet would "
                "eat lending stock."
            ],
            "now": "germ_tests table, FK lot, test date + seeds sown.",
            "next": ["Print new-lot labels once fixed.", "Someday: public catalogue page."],
            "files": ["inventory/lots.py: packet barcode → harvest lot (year/grower/variety)."],
            "context": ["Seed fridge 4 °C (39 °F)."],
        },
        "bad": {
            "goal": "The seed library wants to track germination tests, per packet or per lot.",
            "rules": ["Store the germination rate as a fraction between 0 and 1."],
            "done": ["./scripts/labels.sh new - No such file or directory."],
            "decisions": ["Test every packet separately, more accurate."],
            "now": "Add a germ_tests table keyed on the lot, with the test date and the number of seeds sown.",
            "next": ["Regenerate the barcodes in the new format."],
        },
    },
    {
        "name": "kilnlog",
        "format": "claude_code",
        "cwd": "/home/dev/kilnlog",
        "events": [
            (
                "user",
                "The pottery studio wants a temperature trace of every kiln firing. Poll the controller over Modbus, "
                "or have it push readings to us over MQTT: what would a sensible person do here?",
            ),
            ("say", "Let me read what talks to the controller today."),
            (
                "tool",
                "read",
                "firing/controller.py",
                "PORT = '/dev/ttyUSB0'\ndef read_temp(client):\n    return client.read_input_registers(0x10, 1)[0] / 10\n"
                "def current_segment(client):\n    return client.read_holding_registers(0x20, 1)[0]\n",
                False,
            ),
            (
                "say",
                "firing/controller.py is our link to the kiln's controller over its serial port: it reads the "
                "thermocouple temperature and which segment of the firing schedule the kiln is in.",
            ),
            ("user", "Store the traces as one CSV file per firing."),
            (
                "user",
                "I assume the firing schedules don't need editing for this? The potters tuned them over years.",
            ),
            ("user", "Temperatures in Celsius everywhere, never Fahrenheit."),
            ("tool", "bash", "ls -la glazes/", listing("glaze"), False),
            ("user", "How long did last Friday's glaze firing take?"),
            (
                "tool",
                "bash",
                "python -m firing.report --id 418",
                "firing 418: cone 6 glaze\nstart 2026-11-27 06:02\nend   2026-11-27 17:47\nduration_s: 42300",
                False,
            ),
            ("say", "That's the full firing, from switch-on to the controller's end signal."),
            ("user", "Modbus or MQTT, what's the verdict?"),
            (
                "say",
                "Poll over Modbus. The controller's firmware publishes to MQTT only when a segment changes, so a push "
                "feed would miss the whole ramp between segments, and polling every ten seconds gives the trace the "
                "potters want.",
            ),
            (
                "user",
                "Firings start at 6 am. Eventually we want a text to the studio manager when a firing stalls, but "
                "later.",
            ),
            ("user", "Start the watcher on the kiln Pi."),
            (
                "tool",
                "bash",
                "python -m firing.watch",
                "serial.serialutil.SerialException: [Errno 16] could not open port /dev/ttyUSB0: [Errno 16] Device or "
                "resource busy: '/dev/ttyUSB0'",
                True,
            ),
            (
                "say",
                "The vendor's KilnLink service still holds the serial port, so nothing else can open it; it has to be "
                "stopped with `sudo systemctl stop kilnlink` (and disabled) before our watcher starts.",
            ),
            (
                "user",
                "On second thought, put the traces in the SQLite database the booking app already uses, not separate "
                "files.",
            ),
            (
                "user",
                "Now make controller.py log one row per reading with the firing id, the time and the temperature.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"(modbus|poll\w*)[^\n]{0,160}(rather than|instead of|not mqtt|mqtt[^\n]{0,100}(segment"
                    r"|only|miss|change))|mqtt[^\n]{0,100}(segment|miss)[^\n]{0,100}(modbus|poll)"
                ],
                [
                    r"(go|going|went|stick\w*|switch\w*) (with|to) (an? )?mqtt|mqtt[^.\n]{0,20}(chosen|decided|wins)"
                    r"|chose mqtt|(controller|kiln) (to )?push\w* (readings )?(to us|over mqtt)"
                ],
            ),
            "learnt": (
                [
                    r"(stop|quit|clos|disabl|shut|kill|halt)\w*[^.\n]{0,40}kilnlink|kilnlink[^.\n]{0,80}(stopp|quit"
                    r"|closed|disabl|shut down|turned off|must be off)"
                ],
                [],
            ),
            "measured": (
                [
                    r"42[,. ]?300|11 ?h(ours?|rs?)?,? ?(and )?45|11\.75 ?h|eleven and (a )?three.quarter|11¾|(just )?"
                    r"under 12 (hours|h)|705 ?min"
                ],
                [],
            ),
            "asked": (
                [kept(r"(firing )?schedules?", _NO_CHANGE + r"|need\w* no (edit|chang)\w*")],
                [r"(edit|chang|tweak|adjust|updat|rewrit)\w* (the |a )?(firing )?schedules?"],
            ),
            "role": role(
                r"controller\.py",
                r"serial (port|line|link)|thermocouple|modbus regist|(reads?|reading)[^.\n]{0,40}(temperature|temp\b)[^.\n]{0,40}"
                r"segment|segment[^.\n]{0,40}(temperature|temp\b)",
            ),
            "request": ([r"controller\.py", r"row", r"firing.id", r"time", r"temp"], []),
            "stated": ([r"celsius|°c|centigrade"], [r"in fahrenheit|°f\b"]),
            "todo": ([r"stall", r"text|sms|message|notif|alert", r"manager"], []),
            "detail": ([r"6 ?am|06[:.]00|6[:.]00 ?(am)?|six in the morning|six o'?clock"], []),
            "replaced": replaced(r"sqlite|booking app'?s? (db|database)", r"csv (file )?(per|for each|each) firing"),
        },
        "good": {
            "goal": "The user asked for a temperature trace of every kiln firing at the pottery studio. The work has "
            "gone through which way to read the controller, how long a typical firing runs, and getting a watcher "
            "process onto the kiln's Raspberry Pi; the current task is the logging of the readings themselves.",
            "decisions": [
                "The controller will be polled over Modbus rather than left to push over MQTT. Its firmware "
                "publishes to MQTT only when a schedule segment changes, so a push feed would miss the entire ramp "
                "between segments, whereas a ten-second poll gives the potters the curve they want.",
                "Traces go into the SQLite database that the booking app already uses, rather than one file per "
                "firing as first planned.",
            ],
            "files": [
                "firing/controller.py: the code's only link to the kiln controller, over the serial line; it reads "
                "the thermocouple temperature and the schedule segment currently running. It is the file being "
                "changed now.",
            ],
            "errors": [
                "Starting the watcher (firing.watch) failed with 'Device or resource busy' on /dev/ttyUSB0. The "
                "cause is the vendor's KilnLink service, which keeps the serial port open; KilnLink must be stopped "
                "and disabled through systemd before the watcher can open the port.",
            ],
            "done": [
                "Looked up last Friday's cone 6 glaze firing (27 November, no. 418): it took eleven and three-quarter "
                "hours from switch-on to the end signal.",
            ],
            "rules": [
                "The firing schedules are to be left exactly as they are; the potters have tuned them over years.",
                "All temperatures are given in degrees Celsius throughout.",
                "Traces are kept in the booking app's SQLite database, not in separate files.",
            ],
            "asks": ["Log one row per reading (firing id, timestamp, temperature) from controller.py."],
            "next": [
                "Make controller.py write one row per reading, holding the firing id, the timestamp and the "
                "temperature.",
                "Stop KilnLink on the Pi, then start the watcher again.",
                "Later, not now: text the studio manager when a firing stalls.",
            ],
            "now": "Changing controller.py so that every reading is logged as a row with the firing id, the time and "
            "the temperature. Firings normally start at six in the morning, so the watcher has to be running "
            "before then.",
        },
        "bad": {
            "goal": "A temperature trace of kiln firings.",
            "decisions": ["Have the controller push readings to us over MQTT."],
            "files": ["firing/controller.py"],
            "errors": ["python -m firing.watch: SerialException on /dev/ttyUSB0."],
            "done": ["Ran the firing report."],
            "rules": ["Store the traces as one CSV file per firing.", "Temperatures in Fahrenheit for the US glazes."],
            "next": ["Adjust the firing schedules to the new logger."],
            "now": "Make controller.py log one row per reading with the firing id, the time and the temperature.",
        },
    },
    {
        "name": "tollbridge",
        "format": "claude_code",
        "cwd": "/home/dev/tollbridge",
        "events": [
            (
                "user",
                "Drivers on the toll bridge keep ending up with negative prepaid balances. Charge each crossing as it "
                "happens, or settle everything in a nightly batch? Weigh them up for me.",
            ),
            ("say", "Let me read the charging code before I weigh them."),
            (
                "tool",
                "read",
                "billing/charge.py",
                "def charge(read):\n    acct = accounts.by_tag(read.tag_id)\n"
                "    fee = TARIFF[read.vehicle_class]\n    pending.append((acct, fee))\n",
                False,
            ),
            (
                "say",
                "billing/charge.py turns each gantry read of a transponder into a fee on the driver's prepaid "
                "account, priced by the vehicle class in the tariff, and queues it for the nightly run.",
            ),
            ("user", "Send the low-balance warning when an account drops under $10."),
            ("user", "Let's not go near the tariff table, agreed? The county sets those prices."),
            ("user", "All amounts in integer cents."),
            ("tool", "bash", "ls -la exports/", listing("gantry"), False),
            ("user", "How many crossings did we have yesterday?"),
            (
                "tool",
                "bash",
                "psql tolls -Atc \"select count(*) from reads where read_at::date = '2026-12-02'\"",
                "18406",
                False,
            ),
            ("say", "That's every gantry read for Wednesday, both directions."),
            ("user", "Batch or per crossing, what's your call?"),
            (
                "say",
                "Charge per crossing. With a nightly batch an account can run a whole day of crossings into the red "
                "before anyone sees it, and the gantry already waits for the balance check, so charging on the spot "
                "costs no extra round trip.",
            ),
            (
                "user",
                "The gantry feed is at http://10.20.0.5:8080/reads. Someday monthly statements by email, not now.",
            ),
            ("user", "Run the charge tests."),
            (
                "tool",
                "bash",
                "pytest tests/test_charge.py",
                "FAILED tests/test_charge.py::test_peak_tariff - AssertionError: expected peak fee 350, got 250\n"
                "1 failed, 23 passed",
                True,
            ),
            (
                "say",
                "The test box runs on UTC while the peak tariff follows the bridge's local time, so a crossing at "
                "7:30 local is off-peak on this machine; the tests have to run with TZ=America/Chicago.",
            ),
            ("user", "Actually, make the warning threshold $5. At $10 it pings people constantly."),
            (
                "user",
                "Now make charge.py refuse a crossing that would take the balance below zero, and queue a "
                "low-balance message instead.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"(per|each|every) crossing[^\n]{0,160}(rather than|instead of|not (a |the )?(nightly )?batch|over "
                    r"(a |the )?(nightly )?batch|batch[^\n]{0,100}(negative|red|overdraw|a (whole |full )?day|"
                    r"unnoticed))|(real.?time|immediate|on the spot|as (it|they) happen)\w*[^\n]{0,100}(rather than|"
                    r"instead of|not (a |the )?(nightly )?batch)"
                ],
                [
                    r"(go|going|went|stick\w*) with (a |the )?(nightly )?batch|batch[^.\n]{0,20}(chosen|decided|wins)"
                    r"|chose (a |the )?(nightly )?batch|keep\w* (the )?(nightly )?batch"
                ],
            ),
            "learnt": ([r"tz=|time.?zone|america/chicago|central (time|tz)|\bcst\b|local time"], []),
            "measured": ([r"18[,. ]?406|18\.4 ?k|(about|around|roughly|~|some|nearly) ?18[,. ]?[45]00"], []),
            "asked": (
                [kept(r"tariff", _NO_CHANGE)],
                [r"(chang|edit|updat|adjust|rais|lower)\w* (the |a )?tariffs?|new tariff"],
            ),
            "role": role(
                r"charge\.py",
                r"(read|transponder|tag|crossing)[^.\n]{0,60}(fee|charge)|vehicle class|(fee|charge)[^.\n]{0,40}(prepaid|account)",
            ),
            "request": (
                [r"charge\.py", r"below zero|negative|overdra|(not|never) (go |drop )?below 0|<\s?0", r"low.balance"],
                [],
            ),
            "stated": ([r"cents", r"integer|\bint\b|whole"], []),
            "todo": ([r"statement", r"month"], []),
            "detail": ([r"10\.20\.0\.5:8080"], []),
            "replaced": replaced(
                r"\$ ?5\b|5 (dollars|usd)|500 ?(cents|¢)|five dollars", r"\$ ?10\b|10 dollars|1000 ?cents"
            ),
        },
        "good": {
            "goal": "Stop prepaid toll-bridge accounts going negative.",
            "decisions": [
                "Charging per crossing instead of in a nightly batch: a batch lets an account run a day's crossings "
                "into the red unnoticed, and the gantry already waits on the balance check (no extra round trip).",
            ],
            "files": [
                "billing/charge.py: prices each gantry/transponder read by vehicle class and books the fee on the "
                "prepaid account (currently queued for the nightly run).",
            ],
            "errors": [
                "test_peak_tariff failed (350 expected, 250 got) because the test box is on UTC; peak hours follow "
                "the bridge's local time. Fix: run the suite with TZ=America/Chicago.",
            ],
            "done": ["Wed 2 Dec: ~18.4k crossings (both directions)."],
            "rules": [
                "Tariffs are set by the county and are off-limits.",
                "Money is stored as integer cents.",
                "Low-balance warning at $5 (lowered from $10, which pinged drivers too often).",
            ],
            "asks": ["Reject a crossing that would push the balance below zero; queue a low-balance notice."],
            "next": [
                "Reject in charge.py any crossing that would leave a negative balance and queue a low-balance message.",
                "Re-run the charge tests with the time zone set.",
                "Deferred: monthly e-mailed statements.",
            ],
            "context": ["Gantry feed: 10.20.0.5:8080 (/reads)."],
            "now": "charge.py: refuse crossings that would overdraw the account, queue a low-balance message.",
        },
        "bad": {
            "goal": "Drivers on the toll bridge keep ending up with negative prepaid balances. Charge each crossing as "
            "it happens, or settle everything in a nightly batch?",
            "decisions": ["Keep the nightly batch; it is simpler to reconcile."],
            "files": ["billing/charge.py"],
            "errors": ["pytest tests/test_charge.py: AssertionError: expected peak fee 350, got 250."],
            "done": ["Ran psql on the reads table."],
            "rules": ["Send the low-balance warning when an account drops under $10."],
            "next": ["Update the tariff table for 2027."],
            "now": "Make charge.py refuse a crossing that would take the balance below zero, and queue a low-balance "
            "message instead.",
        },
    },
    {
        "name": "escaperoom",
        "format": "claude_code",
        "cwd": "/home/dev/escaperoom",
        "events": [
            (
                "user",
                "No-shows are costing the escape rooms a fortune. If you had to bet: a hold on the card, or full "
                "prepayment when booking?",
            ),
            ("say", "I'll look at the booking code first."),
            (
                "tool",
                "read",
                "booking/slots.js",
                "export function slots(room, day) {\n  const open = hours(room, day);\n"
                "  return every(open, room.gameMinutes + RESET_MINUTES);\n}\nconst RESET_MINUTES = 30;\n",
                False,
            ),
            (
                "say",
                "booking/slots.js works out each room's bookable start times from its opening hours, leaving a "
                "30-minute reset gap between groups.",
            ),
            ("user", "Free cancellation up to 24 hours before the game."),
            (
                "user",
                "Nothing on the game-master tablets needs to change, I hope? We can't redeploy them before Christmas.",
            ),
            ("user", "Six players per booking at most."),
            ("tool", "bash", "ls -la public/img/", listing("room"), False),
            ("user", "What's our no-show rate this quarter?"),
            (
                "tool",
                "bash",
                "node scripts/noshow.js --since 2026-10-01",
                "bookings: 1311\nno_show: 114\nrate: 0.087",
                False,
            ),
            ("say", "That covers every booking since the start of October."),
            ("user", "Hold or prepay?"),
            (
                "say",
                "A card hold. Full prepayment means refunding every cancellation and losing the card fee each time, "
                "while a hold costs nothing and is only captured when a group doesn't show up.",
            ),
            (
                "user",
                "The last game of the day starts at 21:15. Later on we want gift vouchers, not this sprint.",
            ),
            ("user", "Build it for the staging server."),
            (
                "tool",
                "bash",
                "npm run build",
                "ERROR in ./booking/index.js\nModule not found: Error: Can't resolve './Slots' in "
                "'/home/dev/escaperoom/booking'",
                True,
            ),
            (
                "say",
                "The import says './Slots' but the file is slots.js; macOS ignores the difference, the Linux build "
                "server doesn't, so the import's letter case has to match the file name exactly.",
            ),
            (
                "user",
                "Change of plan: free cancellation only up to 48 hours before, the owners decided this morning.",
            ),
            ("user", "Now make slots.js hide a start time while a card hold for it is pending."),
        ],
        "facts": {
            "concluded": (
                [
                    r"hold[^\n]{0,160}(rather than|instead of|over (full )?pre.?pay|not (full )?pre.?pay|(pre.?pay"
                    r"\w*|up.?front)[^\n]{0,100}(refund|fee)|captured only|only captured|no.?show)"
                ],
                [
                    r"(go|going|went|stick\w*) with (full )?pre.?pay|pre.?pay\w*[^.\n]{0,20}(chosen|decided|wins)"
                    r"|chose (full )?pre.?pay|(take|require|charge)\w* full (prepayment|price|amount)"
                ],
            ),
            "learnt": (
                [
                    r"letter case|(upper|lower).?case|case.?sensitiv|capitali[sz]|casing|case must match|match\w* the "
                    r"file ?name"
                ],
                [],
            ),
            "measured": ([r"0\.087|8\.7 ?(%|per ?cent)|(nearly|almost|about|around|~) ?9 ?(%|per ?cent)"], []),
            "asked": (
                [kept(r"(game.?master|gm) tablets?", _NO_CHANGE + r"|no redeploy|not (be )?redeploy\w*|nothing( on)?")],
                [
                    r"(redeploy|updat|chang)\w* (the )?(game.?master|gm) tablets?|push\w* [^.\n]{0,30}to the (game.?master|gm) tablets?"
                ],
            ),
            "role": role(
                r"slots\.js",
                r"start times|(bookable|free|available) (slots|times)|opening hours|reset (gap|time|buffer)|30.?min",
            ),
            "request": ([r"slots\.js", r"hold", r"hid|pending|unavailable|block"], []),
            "stated": (
                [
                    r"\b(six|6)\b[^.\n]{0,30}(players|people|per booking|max)|(max\w*|at most|up to|cap)[^.\n]"
                    r"{0,20}\b(six|6)\b"
                ],
                [],
            ),
            "todo": ([r"gift", r"voucher|card|certificate"], []),
            "detail": ([r"21[:.]15|9[:.]15 ?pm|quarter past nine"], []),
            "replaced": replaced(r"48 ?h|48.hour|(two|2) days", r"24 ?h|24.hour|(one|a|1) day (before|ahead)"),
        },
        "good": {
            "goal": "Reduce no-shows at the escape rooms (they are costing a lot).",
            "decisions": [
                "Deposit model: card hold rather than full prepayment. Prepaying would mean a refund and a lost card "
                "fee on every cancellation; a hold is free and captured only on a no-show.",
            ],
            "files": [
                "booking/slots.js - generates each room's bookable start times from its opening hours, with a "
                "30-min reset gap between groups.",
            ],
            "errors": [
                "Staging build failed: \"Can't resolve './Slots'\". The Linux build box is case-sensitive (macOS is "
                "not); the import's casing must match slots.js exactly.",
            ],
            "done": ["No-show rate since 1 Oct: 8.7% (114 of 1,311 bookings)."],
            "rules": [
                "Game-master tablets: no changes (no redeploy possible before Christmas).",
                "Max six players per booking.",
                "Free cancellation up to 48 h before the game (owners' decision; replaces the earlier 24 h).",
            ],
            "asks": ["Hide a start time in slots.js while a card hold on it is pending."],
            "next": [
                "Fix the import's case and rebuild for staging.",
                "Later (not this sprint): gift vouchers.",
            ],
            "context": ["Last game of the day starts 9:15 pm."],
            "now": "slots.js: hide a start time while a card hold for it is pending.",
        },
        "bad": {
            "goal": "Fewer no-shows.",
            "decisions": ["Take full prepayment at booking."],
            "errors": ["npm run build failed (module not found)."],
            "rules": ["Free cancellation up to 24 hours before the game."],
            "next": ["Push the new booking flow to the game-master tablets."],
            "now": "Make slots.js hide a start time while a card hold for it is pending.",
        },
    },
    {
        "name": "cinemaseats",
        "format": "codex",
        "cwd": "/home/dev/cinemaseats",
        "events": [
            (
                "user",
                "The community cinema wants people to pick their seats online. For the seat map, SVG drawn on the "
                "server or a canvas in the browser? I genuinely can't decide, you choose.",
            ),
            ("say", "Let me read how the hall is described in the code."),
            (
                "tool",
                "read",
                "seating/layout.py",
                "ROWS = 'ABCDEFGHJK'\nSEATS_PER_ROW = 12\nWHEELCHAIR = {'A1', 'A2', 'A11', 'A12'}\n"
                "COMPANION = {'B1', 'B12'}\n",
                False,
            ),
            (
                "say",
                "seating/layout.py is the floor plan of the hall: its rows and seat numbers, and which places are "
                "wheelchair spaces or companion seats next to them.",
            ),
            ("user", "Sell every seat at one price band."),
            (
                "user",
                "Is it at all possible to leave the box-office till untouched? It's a sealed system from the council.",
            ),
            ("user", "Seat labels are the row letter, then the number, like F12. Never the other way round."),
            ("tool", "bash", "ls -la posters/", listing("poster"), False),
            ("user", "How many tickets did last Saturday's matinee sell?"),
            (
                "tool",
                "bash",
                "python -m boxoffice.sales --show 2026-11-28T14:00",
                "show: 2026-11-28 14:00 Paddington 2\nsold: 96\ncapacity: 120",
                False,
            ),
            ("say", "That is the matinee's final count, walk-ins included."),
            ("user", "So, SVG or canvas?"),
            (
                "say",
                "SVG from the server. It works without JavaScript on the box office's old tablets and a screen reader "
                "can read every seat's label, which a canvas hides; a canvas only pays off with thousands of seats, "
                "and the hall has a hundred and twenty.",
            ),
            (
                "user",
                "Doors open 30 minutes before the film. One day members could pick a favourite seat, but park that.",
            ),
            ("user", "Push what we have."),
            (
                "tool",
                "bash",
                "git push origin main",
                " ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to "
                "'git.cinema.example:web/seats.git'",
                True,
            ),
            (
                "say",
                "Someone pushed to main since we last pulled, so git refuses the push; we have to bring their commits "
                "in with `git pull --rebase` and then push again.",
            ),
            (
                "user",
                "Actually, two price bands: the front three rows are cheaper, nobody likes craning their neck.",
            ),
            ("user", "Now render the seat map as SVG from layout.py, with sold seats greyed out."),
        ],
        "facts": {
            "concluded": (
                [
                    r"svg[^\n]{0,200}(rather than|instead of|over (a |the )?canvas|not (a |the )?canvas|canvas[^\n]{0,100}"
                    r"(hide|screen.?reader|javascript|\bjs\b|thousand|access))|(screen.?reader|without javascript|no "
                    r"js|access\w*)[^\n]{0,100}svg"
                ],
                [
                    r"(go|going|went|stick\w*) with (a |the )?canvas|canvas[^.\n]{0,20}(chosen|decided|wins)|chose "
                    r"(a |the )?canvas|(draw|render)\w* (it |the map )?(on|in|with) (a |the )?canvas"
                ],
            ),
            "learnt": (
                [
                    r"rebase|pull\w*[^.\n]{0,40}(first|before|then push)|(bring|fetch|integrat|merg)\w*[^.\n]{0,40}"
                    r"(their|remote|upstream|others'?|new) commits"
                ],
                [],
            ),
            "measured": ([r"\b96\b|ninety.six"], []),
            "asked": (
                [kept(r"(box.?office )?till", _NO_CHANGE + r"|sealed")],
                [r"(chang|modif|updat|integrat|connect|hook)\w* (in)?to the (box.?office )?till\b|patch\w* the till"],
            ),
            "role": role(
                r"layout\.py",
                r"floor ?plan|wheelchair|companion|rows? (and|&|letters and) (seat )?numbers|seat numbering",
            ),
            "request": ([r"svg", r"layout\.py", r"sold", r"gr[ea]y"], []),
            "stated": (
                [
                    r"row letter[^.\n]{0,40}(then|before|followed by|first)[^.\n]{0,20}number|letter.then.number|"
                    r"\bf12\b|letter first"
                ],
                [],
            ),
            "todo": ([r"favou?rite", r"seat"], []),
            "detail": ([r"30 ?min|half an hour|thirty minutes|half.hour"], []),
            "replaced": replaced(
                r"(two|2) (price )?bands|front (three|3) rows",
                r"(one|single|a single|same) (price )?"
                r"(band|price)",
            ),
        },
        "good": {
            "goal": "The community cinema wants its audience to be able to choose their seats online, and the "
            "session has been about how the seat map should be drawn and what the booking rules are.",
            "done": [
                "I looked up last Saturday's matinee (Paddington 2 on 28 November): ninety-six of the 120 seats were "
                "sold, walk-ins included, so the hall was about four-fifths full.",
            ],
            "decisions": [
                "The seat map will be drawn as SVG on the server rather than on a canvas in the browser, because SVG "
                "works without JavaScript on the box office's old tablets and lets a screen reader announce each "
                "seat's label, which a canvas would hide; a canvas only earns its keep with thousands of seats, and "
                "this hall has 120.",
            ],
            "errors": [
                "Pushing to main was rejected because someone else had pushed in the meantime. Their commits have to "
                "be brought in with a rebasing pull before our push will go through.",
            ],
            "rules": [
                "The box-office till is a sealed system supplied by the council and must be left untouched.",
                "Seat labels always give the row letter first and then the number (F12, never 12F).",
                "There are to be two price bands, with the front three rows sold cheaper, instead of a single price "
                "for every seat as first planned.",
            ],
            "now": "Render the seat map as SVG from layout.py, with the seats already sold shown in grey.",
            "next": [
                "Rebase onto the remote main and push again.",
                "Parked for another day: letting members pick a favourite seat.",
            ],
            "files": [
                "seating/layout.py is the floor plan of the hall: it lists the rows and seat numbers and marks the "
                "wheelchair spaces and the companion seats beside them.",
            ],
            "context": ["Doors open half an hour before each film starts."],
        },
        "bad": {
            "goal": "The community cinema wants people to pick their seats online. For the seat map, SVG drawn on the "
            "server or a canvas in the browser?",
            "done": ["python -m boxoffice.sales --show 2026-11-28T14:00 for Paddington 2.", "Read seating/layout.py."],
            "decisions": ["Draw the map on a canvas in the browser; it is smoother."],
            "errors": ["git push origin main: ! [rejected] main -> main (fetch first)."],
            "rules": ["Sell every seat at one price band.", "Hook the seat map into the box-office till."],
            "now": "Render the seat map as SVG from layout.py, with sold seats greyed out.",
        },
    },
    {
        "name": "snowplow",
        "format": "codex",
        "cwd": "/home/dev/snowplow",
        "events": [
            (
                "user",
                "The city's plough tracker shows ploughs driving through buildings. Snap the GPS points to the road "
                "network with OSRM, or just draw the raw track: which is less trouble long term?",
            ),
            ("say", "Let me look at how streets are handed out first."),
            (
                "tool",
                "read",
                "routes/assign.py",
                "PRIORITY = ['bus', 'hospital', 'arterial', 'residential']\n"
                "def assign(ploughs, streets):\n    for tier in PRIORITY:\n        ...\n",
                False,
            ),
            (
                "say",
                "routes/assign.py hands each plough its streets for the shift in priority order: bus routes and "
                "hospital access first, then arterials, then residential streets.",
            ),
            ("user", "Mark a street as done after one pass."),
            ("user", "Please tell me we don't have to touch the dispatch radio integration."),
            ("user", "Keep GPS history for 90 days, no longer."),
            ("tool", "bash", "ls -la tracks/", listing("trk"), False),
            ("user", "How far did the ploughs drive during last night's storm?"),
            (
                "tool",
                "bash",
                "python -m tracks.distance --since '2026-12-02 18:00'",
                "ploughs: 23\ntotal_km: 1287.4",
                False,
            ),
            ("say", "That's all ploughs together since the storm started."),
            ("user", "OSRM or raw?"),
            (
                "say",
                "Snap with OSRM. The raw GPS drifts up to 30 metres between the tall buildings downtown, which puts "
                "ploughs on parallel streets and marks streets as done that nobody ploughed.",
            ),
            (
                "user",
                "The night shift runs from 10 pm to 6 am. Later a public 'when will my street be ploughed' page, not "
                "now.",
            ),
            ("user", "Start the router."),
            (
                "tool",
                "bash",
                "docker compose up osrm",
                "osrm-1  | [error] Required files are missing, cannot continue. Have all the pre-processing steps been "
                "run?\nosrm-1 exited with code 1",
                True,
            ),
            (
                "say",
                "The router needs the city's map prepared before it can start: run osrm-extract and then "
                "osrm-contract on the region's .osm.pbf file, then bring the container up.",
            ),
            ("user", "Actually, two passes for priority streets: one pass isn't enough on bus routes."),
            ("user", "Now feed the snapped tracks into assign.py so a street counts as done once its passes are in."),
        ],
        "facts": {
            "concluded": (
                [
                    r"(osrm|snap\w*)[^\n]{0,160}(rather than|instead of|over (the )?raw|not (the )?raw|raw[^\n]{0,80}"
                    r"(drift|jump|wrong|parallel)|drift|parallel)"
                ],
                [
                    r"(go|going|went|stick\w*) with (the )?raw|raw (gps )?(track|points)[^.\n]{0,20}(chosen|decided|"
                    r"wins|are fine|is fine|good enough)|chose (the )?raw"
                ],
            ),
            "learnt": ([r"osrm.extract|osrm.contract|\bextract\b[^.\n]{0,40}\bcontract|\.osm\.pbf|\bpbf\b"], []),
            "measured": (
                [r"1[,. ]?287|1[,. ]?29\d ?km|1\.3 ?k ?km|(about|around|roughly|~|some|nearly) ?1[,. ]?300"],
                [],
            ),
            "asked": (
                [kept(r"(dispatch )?radio", _NO_CHANGE)],
                [r"(chang|rewir|updat|modif)\w* (the )?(dispatch )?radio"],
            ),
            "role": role(
                r"assign\.py",
                r"priority|bus routes?[^.\n]{0,40}hospital|(hands?|gives?|assigns?)[^.\n]{0,30}(streets|routes)",
            ),
            "request": ([r"assign\.py", r"snap", r"done|complete"], []),
            "stated": ([r"\b90 ?d(ays)?\b|90.day|three months|3 months"], []),
            "todo": ([r"public", r"street|plough|plow"], []),
            "detail": ([r"(10 ?pm|22[:.]?00)[^\n]{0,20}(6 ?am|06[:.]?00)"], []),
            "replaced": replaced(r"(two|2|second|double) pass|2x pass|twice", r"(one|single|1|a) pass\b"),
        },
        "good": {
            "goal": "Plough tracker: stop tracks cutting through buildings.",
            "done": [
                "Storm (since 18:00 Wed): 23 ploughs, ~1.3k km total.",
                "Decided: OSRM snapping, not raw GPS; raw drifts ≤30 m downtown → ploughs on parallel streets, false "
                "'done' marks.",
                "`docker compose up osrm` fails: map not prepared → osrm-extract + osrm-contract on region .osm.pbf, "
                "then start.",
            ],
            "rules": [
                "Dispatch radio integration: out of scope.",
                "GPS history kept 90 d max.",
                "Priority streets need 2 passes before done (was 1).",
            ],
            "now": "assign.py: mark a street done when its passes are in, from snapped tracks.",
            "next": ["Prep OSRM map, restart router.", "Later: public 'when is my street ploughed' page."],
            "files": ["routes/assign.py: per-shift street assignment by priority (bus/hospital → arterial → resid.)."],
            "context": ["Night shift 22:00-06:00."],
        },
        "bad": {
            "goal": "Ploughs driving through buildings on the map.",
            "done": ["Raw GPS track is fine, no snapping needed.", "Router won't start: required files are missing."],
            "rules": ["Mark a street as done after one pass.", "Rewire the dispatch radio to send the tracks."],
            "now": "Feed the snapped tracks into assign.py so a street counts as done once its passes are in.",
            "next": ["Keep GPS history forever."],
        },
    },
]
