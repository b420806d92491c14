"""The implicit facts' second round: new projects, in pi, Claude Code and Codex format.

Written by hand, as round 1 (implicit_cases.py, whose docstring describes the six kinds:
`concluded`, `learnt`, `measured`, `asked`, `role`, `request`), in new themes and wordings:
the which-way question is put as "is it better to … or …", "your call", "thoughts?"; the
failing command is a permission, a version, a lock or a network refusal; the number is a
count, a size, a duration or a percentage in a tool's output; the rule asked as a question
is "would you mind not …", "can we avoid …", "is it OK if we keep …".

Per case `format` (the agent it is written for), `events` (as round 1), `facts` (per kind:
present regexes, contra regexes, on the lower-cased summary), `good` and `bad`: a summary's
parts (`goal`, `rules`, `done`, `now`, `decisions`, `next`, `files`, `errors`, `asks`,
`context`), shaped per format by implicit2.py.

HELD_OUT was written and committed first, before the audit was run on any of it, and is
never tuned on.
"""

from __future__ import annotations

from bench.truth.implicit_cases import Case, listing

HELD_OUT: list[Case] = [
    {
        "name": "ticketdesk",
        "format": "codex",
        "cwd": "/home/dev/ticketdesk",
        "events": [
            (
                "user",
                "Enterprise tickets breach their SLA even when an agent answered in time. Is it better to keep the "
                "SLA clock as a stored deadline column in Postgres, or to work it out each time from the events table?",
            ),
            (
                "say",
                "Both are workable. A stored deadline is cheap to query but must be recomputed when the priority "
                "changes; deriving it from events is always right but costs a scan per ticket. I'll check how the "
                "breach job reads it first.",
            ),
            (
                "tool",
                "read",
                "sla/breach_job.py",
                "# started by the worker every minute\ndef run():\n    for t in Ticket.open():\n"
                "        if now() > t.created_at + policy(t).response_time:\n            mark_breached(t)\n",
                False,
            ),
            (
                "say",
                "sla/breach_job.py is the sweep that flags breaches once a minute: it compares each open ticket's "
                "creation time plus the policy's response time with the clock, and never looks at the first agent "
                "reply, which is why answered tickets still breach.",
            ),
            ("tool", "bash", "ls -la exports/", listing("tickets"), False),
            (
                "user",
                "Would you mind not touching the customer-facing SLA notification email? Support wrote that copy "
                "together with the account managers.",
            ),
            ("user", "How many tickets are open right now? I want to know what a backfill would touch."),
            (
                "tool",
                "bash",
                "psql -Atc 'select count(*) from tickets where closed_at is null'",
                "17406",
                False,
            ),
            ("say", "That's every open ticket across all tiers."),
            ("user", "Alright, your call then."),
            (
                "say",
                "The stored deadline column. The sweep visits every open ticket every minute, so replaying the events "
                "each time would not scale, and a priority change is a single place where we recompute it.",
            ),
            ("user", "Run the migration check before we write anything."),
            (
                "tool",
                "bash",
                "alembic check",
                "INFO  [alembic.runtime.migration] Context impl PostgresqlImpl.\n"
                "ERROR [alembic.util.messaging] Target database is not up to date.\n"
                "  FAILED: Target database is not up to date.",
                True,
            ),
            (
                "say",
                "The local database is behind the migration history, so alembic refuses to generate anything: the "
                "pending migrations have to be applied with `alembic upgrade head` before a new one can be created.",
            ),
            ("user", "Now write the migration that adds the response deadline column and backfills it."),
        ],
        "facts": {
            "concluded": (
                [r"(stored|store|persist\w*|keep)[^.\n]{0,30}deadline|deadline column"],
                [r"decided:? (to )?(derive|compute|work)[^.\n]{0,40}(each time|on the fly)"],
            ),
            "learnt": (
                [
                    r"(database|db)[^.\n]{0,40}(behind|not up to date|out of date)|pending migrations",
                    r"upgrade head",
                ],
                [],
            ),
            "measured": ([r"17[, ]?406|17\.4 ?k"], []),
            "asked": (
                [
                    r"(sla|breach)[^.\n]{0,30}(email|mail)",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif|rewrit)\w*",
                ],
                [],
            ),
            "role": ([r"breach_job\.py", r"every minute|once a minute|each minute"], []),
            "request": ([r"migration", r"backfill"], []),
        },
        "good": {
            "goal": "Stop enterprise tickets from breaching their SLA when an agent has answered in time.",
            "rules": [
                "Do not touch the customer-facing SLA notification email: Support wrote it with the account managers.",
                "The local database is behind the migration history: run `alembic upgrade head` before generating a "
                "new migration.",
            ],
            "done": [
                "Read sla/breach_job.py: the sweep run every minute that flags breaches from creation time plus the "
                "policy's response time; it ignores the first agent reply (the bug).",
                "Counted open tickets: 17,406 (all tiers), what a backfill would touch.",
            ],
            "decisions": [
                "SLA clock: a stored deadline column, recomputed when the priority changes; replaying the events "
                "table on every sweep was rejected as too slow.",
            ],
            "errors": ["`alembic check` failed: target database is not up to date."],
            "now": "Write the migration that adds the response deadline column and backfills it.",
            "next": ["Apply pending migrations, then generate and write the deadline migration with its backfill."],
            "files": ["sla/breach_job.py: the once-a-minute breach sweep."],
        },
        "bad": {
            "goal": "Fix SLA issues.",
            "done": ["Looked at some files and ran a couple of commands."],
            "decisions": ["Decided: work the SLA clock out each time from the events table."],
            "now": "Write the migration with a backfill.",
            "next": ["Continue."],
        },
    },
    {
        "name": "greenhouse",
        "format": "pi",
        "cwd": "/home/dev/greenhouse",
        "events": [
            (
                "user",
                "The vent motor chatters when the temperature hovers around the setpoint. Thoughts? Hysteresis in the "
                "controller, or a minimum run time on the motor?",
            ),
            ("say", "I'll read the control loop before I pick one."),
            (
                "tool",
                "read",
                "firmware/src/climate.c",
                "void climate_tick(void) {\n  float t = sensor_temp();\n  if (t > setpoint) vent_open();\n"
                "  else vent_close();\n}\n",
                False,
            ),
            (
                "say",
                "firmware/src/climate.c holds the control loop that the scheduler calls every two seconds: it opens "
                "the vent whenever the reading is above the setpoint and closes it otherwise, with no band at all.",
            ),
            ("tool", "bash", "ls -la logs/", listing("climate"), False),
            (
                "user",
                "Is it OK if we keep the sensor calibration table exactly as it is? It was measured in the field and "
                "we can't redo it this season.",
            ),
            ("user", "How big is the firmware image at the moment? The board has 256 KB of flash."),
            (
                "tool",
                "bash",
                "arm-none-eabi-size build/greenhouse.elf",
                "   text\t   data\t    bss\t    dec\t    hex\tfilename\n 231784\t   2140\t  18312\t 252236\t  3d94c\t"
                "build/greenhouse.elf",
                False,
            ),
            ("say", "There you go."),
            ("user", "So, which of the two?"),
            (
                "say",
                "Hysteresis: a band of half a degree around the setpoint fixes the cause, the loop deciding on every "
                "noisy reading, while a minimum run time would only hide it and keep the motor working harder.",
            ),
            ("user", "Flash the test board so we can watch it."),
            (
                "tool",
                "bash",
                "make flash",
                "openocd -f board/greenhouse.cfg -c 'program build/greenhouse.elf verify reset exit'\n"
                "Error: libusb_open() failed with LIBUSB_ERROR_ACCESS\nError: no device found\nmake: *** [flash] Error 1",
                True,
            ),
            (
                "say",
                "This machine's user has no permission on the USB debug probe (libusb access denied), so flashing "
                "has to go through sudo or a udev rule for the probe until that is set up.",
            ),
            ("user", "Now add the hysteresis band as a setting in the config header."),
        ],
        "facts": {
            "concluded": ([r"hysteresis"], [r"(chose|choose|go with|going with|decided on|use) (a )?minimum run time"]),
            "learnt": (
                [
                    r"(permission|access)[^.\n]{0,40}(usb|probe)|(usb|probe)[^.\n]{0,40}(permission|access denied)",
                    r"sudo|udev",
                ],
                [],
            ),
            "measured": ([r"231[, ]?784|252[, ]?236|246 ?k|226 ?k|231\.8 ?k|252 ?k"], []),
            "asked": (
                [
                    r"calibration table",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif|redo)\w*",
                ],
                [],
            ),
            "role": ([r"climate\.c", r"control loop|every two seconds|every 2 ?s"], []),
            "request": ([r"hysteresis band|band", r"config header|setting"], []),
        },
        "good": {
            "goal": "Stop the greenhouse vent motor from chattering around the setpoint.",
            "rules": [
                "Keep the sensor calibration table exactly as it is (field-measured, cannot be redone this season).",
                "No USB permission on the debug probe for this user: flash with sudo or add a udev rule.",
            ],
            "done": [
                "Read firmware/src/climate.c: the control loop, called every two seconds, opens the vent above the "
                "setpoint and closes it below with no band.",
                "Measured the image: 231,784 bytes of text (252,236 total) against 256 KB of flash.",
            ],
            "errors": ["`make flash` failed: libusb access denied on the probe."],
            "decisions": [
                "Hysteresis of half a degree around the setpoint; a minimum motor run time was rejected as hiding "
                "the cause.",
            ],
            "now": "Add the hysteresis band as a setting in the config header.",
            "next": ["Flash the test board (sudo or udev rule) and watch the vent."],
        },
        "bad": {
            "goal": "Work on the greenhouse firmware.",
            "done": ["Read some firmware and tried to flash the board."],
            "decisions": ["Go with a minimum run time on the vent motor."],
            "now": "Add the hysteresis band setting to the config header.",
            "next": ["Keep going."],
        },
    },
    {
        "name": "podcastfeed",
        "format": "claude_code",
        "cwd": "/home/dev/podcastfeed",
        "events": [
            (
                "user",
                "Apple Podcasts shows some episodes twice after we re-publish. Should the GUID come from the audio "
                "file's hash, or from the episode's database id?",
            ),
            (
                "say",
                "Let me see how the feed is built before answering; the answer depends on what changes between "
                "publishes.",
            ),
            (
                "tool",
                "read",
                "feed/render.rb",
                "def item(ep)\n  { title: ep.title, guid: Digest::SHA1.hexdigest(ep.audio_url), "
                "enclosure: ep.audio_url }\nend\n",
                False,
            ),
            (
                "say",
                "feed/render.rb turns each episode row into an RSS <item>; today it derives the GUID from the audio "
                "URL, so any re-upload to a new URL looks like a brand new episode to the directories.",
            ),
            ("tool", "bash", "ls -la public/audio/", listing("episode"), False),
            (
                "user",
                "Can we avoid changing the feed's public URL? Thousands of apps have it saved and there is no "
                "redirect we control.",
            ),
            ("user", "And how long does a full feed rebuild take today?"),
            (
                "tool",
                "bash",
                "time bin/rebuild-feed",
                "wrote public/feed.xml (412 items)\n\nreal\t0m38.6s\nuser\t0m31.2s\nsys\t0m2.9s",
                False,
            ),
            ("say", "That's the whole rebuild, end to end."),
            ("user", "Hash or id — what would you pick?"),
            (
                "say",
                "The database id. It never changes for an episode, while any hash of the file or its URL changes "
                "every time we fix the audio and re-upload, which is exactly what makes the duplicates.",
            ),
            ("user", "Validate the current feed first."),
            (
                "tool",
                "bash",
                "npx podcast-validator public/feed.xml",
                "npm ERR! code E403\nnpm ERR! 403 Forbidden - GET podcast-validator - package access denied from "
                "this network",
                True,
            ),
            (
                "say",
                "The package registry is blocked from this network (403 on install), so the validator cannot be "
                "fetched here; the feed has to be validated with the offline `xmllint --schema` check we vendored.",
            ),
            ("user", "Now switch the GUIDs to the episode ids, keeping the old GUIDs for already published episodes."),
        ],
        "facts": {
            "concluded": (
                [r"(database|db) ids?"],
                [r"(use|chose|choose|go with|going with|pick(ed)?) (the )?(audio |file'?s? )?hash"],
            ),
            "learnt": (
                [
                    r"(registry|npm|package|validator)[^.\n]{0,50}(blocked|forbidden|403|cannot be (fetched|installed))",
                    r"xmllint",
                ],
                [],
            ),
            "measured": ([r"38\.6 ?s|38\.6 seconds|39 ?s|39 seconds"], []),
            "asked": (
                [
                    r"(public |feed'?s? )(feed )?url",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged|the same)|(don'?t|do not|not|never|avoid)"
                    r" (touch|chang|edit|modif|mov)\w*",
                ],
                [],
            ),
            "role": ([r"render\.rb", r"rss|<item>|\bitems?\b"], []),
            "request": ([r"guid", r"episode ids?|ids"], []),
        },
        "good": {
            "goal": "Stop Apple Podcasts from listing episodes twice after a re-publish.",
            "rules": [
                "Do not change the feed's public URL: apps have it saved and there is no redirect we control.",
                "npm's registry is blocked from this network (403), so validate the feed offline with the vendored "
                "`xmllint --schema` check.",
            ],
            "asks": ["Hash or id — what would you pick?"],
            "done": [
                "Timed a full feed rebuild: 38.6 s for 412 items.",
                "Found the cause: GUIDs derived from the audio URL change on every re-upload.",
            ],
            "decisions": [
                "GUID source: the episode's database id, stable across re-uploads (a file hash was rejected)."
            ],
            "errors": ["`npx podcast-validator` failed: 403 Forbidden from the registry."],
            "files": ["feed/render.rb: builds each RSS <item> from an episode row; GUID currently from the audio URL."],
            "now": "Switch the GUIDs to the episode ids, keeping the old GUIDs for already published episodes.",
            "next": ["Switch GUIDs to episode ids with the old ones kept for published episodes, then run xmllint."],
        },
        "bad": {
            "goal": "Podcast feed work.",
            "done": ["Looked around the feed code."],
            "decisions": ["Use the audio file hash as the GUID."],
            "now": "Switch the GUIDs to episode ids.",
            "next": ["Continue."],
        },
    },
    {
        "name": "ferryplan",
        "format": "codex",
        "cwd": "/home/dev/ferryplan",
        "events": [
            (
                "user",
                "The timetable import chokes on the winter schedule. Do we parse the operator's PDF directly, or ask "
                "them for the GTFS export they mentioned?",
            ),
            ("say", "Before choosing I want to see what the importer expects."),
            (
                "tool",
                "read",
                "importer/timetable.py",
                "def load(path):\n    rows = pdf_tables(path)\n    return [Sailing.from_row(r) for r in rows if r]\n",
                False,
            ),
            (
                "say",
                "importer/timetable.py is the only way sailings get into the booking database: it pulls the tables "
                "out of the operator's PDF and turns each row into a Sailing, so every layout change breaks it.",
            ),
            ("tool", "bash", "ls -la samples/", listing("timetable"), False),
            (
                "user",
                "Please don't rename any of the route codes in the process, the ticket machines on the quay match "
                "on them.",
            ),
            ("user", "What share of the winter rows fail to parse right now?"),
            (
                "tool",
                "bash",
                "python -m importer.dryrun samples/winter-2027.pdf",
                "rows read: 1240\nrows parsed: 1078\nrows failed: 162 (13.1%)",
                False,
            ),
            ("say", "That's the dry run on the winter file."),
            ("user", "OK, so PDF or GTFS?"),
            (
                "say",
                "Ask them for the GTFS export. It is a published standard with stable columns, so it ends the "
                "breakage at its source, where a smarter PDF parser would only move the failures to next season's "
                "layout.",
            ),
            ("user", "Can you check the build still passes on the CI image?"),
            (
                "tool",
                "bash",
                "docker run --rm ci/python:3.8 pytest -q",
                "ERROR: Package 'ferryplan' requires a different Python: 3.8.18 not in '>=3.11'",
                True,
            ),
            (
                "say",
                "The CI image still runs Python 3.8 while the project needs 3.11 or newer, so the tests cannot run "
                "on it; the CI image has to be moved to python:3.12 first.",
            ),
            ("user", "Draft the email to the operator asking for the GTFS feed."),
        ],
        "facts": {
            "concluded": (
                [r"gtfs"],
                [r"(parse|parsing|improve|smarter)[^.\n]{0,30}pdf[^.\n]{0,30}(chosen|decided|instead)"],
            ),
            "learnt": (
                [
                    r"(python )?3\.8[^.\n]{0,60}(3\.11|3\.12|newer)|(3\.11|3\.12)[^.\n]{0,60}3\.8",
                    r"ci image|ci's image|ci runner|\bci\b",
                ],
                [],
            ),
            "measured": ([r"162|13\.1 ?%"], []),
            "asked": (
                [
                    r"route codes?",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif|renam)\w*",
                ],
                [],
            ),
            "role": ([r"timetable\.py", r"(only|sole)[^.\n]{0,40}(way|path|entry)|pdf[^.\n]{0,40}(sailing|row)"], []),
            "request": ([r"email|e-mail|mail", r"operator"], []),
        },
        "good": {
            "goal": "Make the ferry timetable import cope with the operator's winter schedule.",
            "rules": [
                "Don't rename any route codes: the quay ticket machines match on them.",
                "The CI image runs Python 3.8 but the project needs >= 3.11: move CI to python:3.12 before relying "
                "on it.",
            ],
            "done": ["Dry run on samples/winter-2027.pdf: 162 of 1,240 rows fail to parse (13.1%)."],
            "decisions": [
                "Timetable source: ask the operator for their GTFS export (a stable standard) instead of parsing "
                "the PDF harder.",
            ],
            "errors": ["pytest on the CI image failed: Python 3.8 not in >=3.11."],
            "files": [
                "importer/timetable.py: the only path from the operator's PDF tables to Sailing rows in the booking "
                "database.",
            ],
            "now": "Draft the email to the operator asking for the GTFS feed.",
            "next": ["Send the GTFS request; update the CI image."],
        },
        "bad": {
            "goal": "Timetable import.",
            "done": ["Ran a dry run and checked CI."],
            "decisions": ["Keep parsing the PDF; a smarter PDF parser was decided instead of asking for a feed."],
            "now": "Draft the email to the operator.",
            "next": ["Carry on."],
        },
    },
    {
        "name": "libraryloans",
        "format": "pi",
        "cwd": "/home/dev/libraryloans",
        "events": [
            (
                "user",
                "Overdue notices go out to people who returned their books at the after-hours drop box. What do you "
                "recommend: backdate the return to the drop time, or hold notices for a day?",
            ),
            (
                "say",
                "There's a case for both; backdating is more precise, a grace day is simpler. Let me read the notice "
                "job.",
            ),
            (
                "tool",
                "read",
                "app/jobs/overdue_notices.rb",
                "class OverdueNotices\n  def perform\n    Loan.where('due_on < ?', Date.today).where(returned_at: nil)"
                ".find_each { |l| Mailer.overdue(l).deliver_later }\n  end\nend\n",
                False,
            ),
            (
                "say",
                "app/jobs/overdue_notices.rb is the nightly job that mails every loan past its due date that has no "
                "return recorded yet; a book sitting in the drop box is not checked in until staff scan it the next "
                "morning.",
            ),
            ("tool", "bash", "ls -la db/seeds/", listing("seed"), False),
            (
                "user",
                "Could we please not alter the wording of the notice itself? The library board approved it last "
                "spring.",
            ),
            ("user", "How many notices went out last month?"),
            (
                "tool",
                "bash",
                "bin/rails runner 'puts NoticeLog.where(sent_at: 1.month.ago..).count'",
                "2318",
                False,
            ),
            ("say", "That's from the notice log."),
            ("user", "Right. Backdate or grace day, then?"),
            (
                "say",
                "Backdate the return to the drop-box time. The drop box already stamps each slot with the time, so "
                "the loan is simply not overdue, while a grace day would still mail the people who return late at "
                "night on a Friday.",
            ),
            ("user", "Run the job's specs."),
            (
                "tool",
                "bash",
                "bundle exec rspec spec/jobs",
                "An error occurred while loading spec_helper.\nActiveRecord::ConnectionNotEstablished: connection to "
                'server at "db.library.lan" (10.0.4.12), port 5432 failed: could not connect',
                True,
            ),
            (
                "say",
                "The specs try to reach the branch database server, which this laptop cannot connect to off the "
                "library network, so they must run against the local Postgres via DATABASE_URL instead.",
            ),
            ("user", "Now make the drop-box scan set returned_at to the slot's timestamp."),
        ],
        "facts": {
            "concluded": (
                [r"backdat\w*|drop[- ]box (time|timestamp)"],
                [
                    r"(grace day|hold (the )?notices)[^.\n]{0,40}(chosen|decided|instead)|(chose|go with|decided on) "
                    r"(a )?grace"
                ],
            ),
            "learnt": (
                [
                    r"(cannot|can'?t|not|unable to|no way to) (reach|connect)[^.\n]{0,50}(database|db|server)"
                    r"|(database|db|server)[^.\n]{0,40}(unreachable|not reachable)",
                    r"local postgres|database_url",
                ],
                [],
            ),
            "measured": ([r"2[, ]?318|2\.3 ?k"], []),
            "asked": (
                [
                    r"wording|notice text|notice'?s? (text|copy)",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif|alter)\w*",
                ],
                [],
            ),
            "role": ([r"overdue_notices\.rb", r"nightly|every night|each night"], []),
            "request": ([r"returned_at", r"slot|drop[- ]box"], []),
        },
        "good": {
            "goal": "Stop overdue notices going to readers who returned books at the after-hours drop box.",
            "rules": [
                "Don't alter the notice's wording: the library board approved it.",
                "The specs cannot reach the branch database server off the library network: run them against the "
                "local Postgres via DATABASE_URL.",
            ],
            "done": [
                "Read app/jobs/overdue_notices.rb: the nightly job mailing every loan past due with no return "
                "recorded.",
                "Last month's notices: 2,318.",
            ],
            "errors": ["`rspec spec/jobs` failed: could not connect to db.library.lan."],
            "decisions": [
                "Backdate the return to the drop-box slot's timestamp; a grace day before notices was rejected (late "
                "Friday returns would still be mailed).",
            ],
            "now": "Make the drop-box scan set returned_at to the slot's timestamp.",
            "next": ["Run the job specs against local Postgres."],
        },
        "bad": {
            "goal": "Library notices.",
            "done": ["Read the notice job."],
            "decisions": ["Go with a grace day: hold notices for a day."],
            "now": "Set returned_at from the drop-box slot.",
            "next": ["Continue."],
        },
    },
    {
        "name": "climbgym",
        "format": "claude_code",
        "cwd": "/home/dev/climbgym",
        "events": [
            (
                "user",
                "Members can book the same auto-belay slot twice if they double-tap. A unique index, or a lock in "
                "the booking service — which one do you think?",
            ),
            ("say", "I'll look at the booking path first."),
            (
                "tool",
                "read",
                "services/booking.ts",
                "export async function book(memberId: string, slotId: string) {\n"
                "  const taken = await db.bookings.count({ slotId });\n  if (taken < capacity(slotId)) "
                "await db.bookings.insert({ memberId, slotId });\n}\n",
                False,
            ),
            (
                "say",
                "services/booking.ts is what the app's Book button calls: it counts the bookings for the slot and "
                "inserts one if there is room, with nothing stopping two requests from passing the count together.",
            ),
            ("tool", "bash", "ls -la migrations/", listing("migration"), False),
            (
                "user",
                "Can we keep the booking API's response shape unchanged? The kiosk app at the front desk parses it "
                "and we can't update that app before spring.",
            ),
            ("user", "How often does it happen? Check the duplicates."),
            (
                "tool",
                "bash",
                'psql -Atc "select count(*) from (select member_id, slot_id from bookings group by 1,2 having '
                'count(*) > 1) d"',
                "87",
                False,
            ),
            ("say", "Those are the duplicated member/slot pairs in the bookings table."),
            ("user", "Index or lock?"),
            (
                "say",
                "A unique index on (member_id, slot_id). The database then refuses the second insert whatever the "
                "timing, and unlike a lock in the service it also holds when we run a second instance.",
            ),
            ("user", "Try creating it on staging."),
            (
                "tool",
                "bash",
                "psql $STAGING_URL -c 'create unique index concurrently on bookings (member_id, slot_id)'",
                'ERROR:  could not create unique index "bookings_member_id_slot_id_idx"\n'
                "DETAIL:  Key (member_id, slot_id)=(m_2291, s_0412) is duplicated.",
                True,
            ),
            (
                "say",
                "The index cannot be created while duplicate bookings exist, so the duplicates have to be removed "
                "first, keeping the earliest booking of each pair.",
            ),
            ("user", "Write the cleanup script that removes the duplicate bookings."),
        ],
        "facts": {
            "concluded": (
                [r"unique (index|constraint)"],
                [r"(chose|choose|go with|going with|decided on|use) (a )?(service |booking )?lock"],
            ),
            "learnt": (
                [
                    r"(index|constraint)[^.\n]{0,60}(cannot|can'?t|not|won'?t)[^.\n]{0,20}(be )?creat\w*|duplicates?"
                    r"[^.\n]{0,40}(first|before)",
                    r"earliest|remov\w+ (the )?duplicates?|dedup\w*|clean ?up",
                ],
                [],
            ),
            "measured": ([r"\b87\b"], []),
            "asked": (
                [
                    r"response (shape|format)",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif|alter)\w*",
                ],
                [],
            ),
            "role": ([r"booking\.ts", r"book button|counts?[^.\n]{0,30}(then )?inserts?"], []),
            "request": ([r"cleanup|clean-up|clean up", r"duplicate"], []),
        },
        "good": {
            "goal": "Stop members from booking the same auto-belay slot twice.",
            "rules": [
                "Keep the booking API's response shape unchanged: the front-desk kiosk app parses it.",
                "The unique index cannot be created while duplicates exist: remove them first, keeping each pair's "
                "earliest booking.",
            ],
            "asks": ["Index or lock?"],
            "done": ["Counted duplicated member/slot pairs: 87."],
            "decisions": [
                "A unique index on (member_id, slot_id) rather than a lock in the booking service: it holds across "
                "instances.",
            ],
            "errors": ["Creating the index on staging failed: key (m_2291, s_0412) is duplicated."],
            "files": [
                "services/booking.ts: behind the app's Book button; counts the slot's bookings then inserts, racing "
                "on double taps.",
            ],
            "now": "Write the cleanup script that removes the duplicate bookings.",
            "next": ["Run the cleanup on staging, then create the unique index."],
        },
        "bad": {
            "goal": "Booking bug.",
            "done": ["Looked at the booking code."],
            "decisions": ["Use a lock in the booking service."],
            "now": "Write the cleanup script for duplicate bookings.",
            "next": ["Continue."],
        },
    },
]

TUNE: list[Case] = [
    {
        "name": "kioskguide",
        "format": "pi",
        "cwd": "/home/dev/kioskguide",
        "events": [
            (
                "user",
                "The museum kiosks freeze after a few hours on the gallery map. Is it better to reload the whole app "
                "every night, or to find the leak in the map view?",
            ),
            ("say", "I'd like to look at the map view before picking."),
            (
                "tool",
                "read",
                "src/views/GalleryMap.tsx",
                "useEffect(() => {\n  const timer = setInterval(refreshBeacons, 5000);\n  map.on('move', onMove);\n"
                "}, [floor]);\n",
                False,
            ),
            (
                "say",
                "src/views/GalleryMap.tsx draws the floor plan and polls the room beacons every five seconds; each "
                "floor change adds another interval and another move listener without removing the old ones.",
            ),
            ("tool", "bash", "ls -la assets/tiles/", listing("tile"), False),
            (
                "user",
                "Would you mind leaving the accessibility audio guide untouched? The museum's accessibility officer "
                "signed off on it last month.",
            ),
            ("user", "How much memory does a kiosk use after a day?"),
            (
                "tool",
                "bash",
                "ssh kiosk-03 'ps -o rss=,cmd= -C electron | sort -n | tail -1'",
                "1843212 /opt/kiosk/electron --type=renderer",
                False,
            ),
            ("say", "That's the renderer on kiosk 3, which has been up since yesterday morning."),
            ("user", "OK — nightly reload or fix the leak?"),
            (
                "say",
                "Fix the leak in the map view: clear the interval and remove the move listener when the floor "
                "changes. A nightly reload would only hide it, and visitors on a busy day would still see the "
                "freeze before the night.",
            ),
            ("user", "Run the unit tests."),
            (
                "tool",
                "bash",
                "npm test",
                "> kioskguide@2.4.0 test\n> jest\n\nError: Node.js v16.20.2 is not supported; jest 30 requires "
                "Node.js >= 18",
                True,
            ),
            (
                "say",
                "The installed Node is 16 and this jest needs Node 18 or newer, so the tests can only run after "
                "switching with `nvm use 20` (the version in .nvmrc).",
            ),
            ("user", "Now add the cleanup to the effect in GalleryMap."),
        ],
        "facts": {
            "concluded": (
                [r"(fix|find|plug)[^.\n]{0,30}leak|clear(s|ing)? the interval"],
                [
                    r"(chose|choose|go with|going with|decided on|use) (a )?nightly reload|reload[^.\n]{0,30}every night"
                    r"[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": (
                [r"node[^.\n]{0,40}(16|18|newer)", r"nvm use|\.nvmrc|node 20"],
                [],
            ),
            "measured": ([r"1[, ]?843[, ]?212|1\.8 ?gb|1\.76 ?gb|1[, ]?800 ?mb"], []),
            "asked": (
                [
                    r"audio guide",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif)\w*",
                ],
                [],
            ),
            "role": ([r"gallerymap\.tsx", r"floor plan|beacons?"], []),
            "request": ([r"cleanup|clean-up|clean up", r"effect|gallerymap"], []),
        },
        "good": {
            "goal": "Stop the museum kiosks freezing after a few hours on the gallery map.",
            "rules": [
                "Leave the accessibility audio guide untouched (signed off by the accessibility officer).",
                "Tests need Node >= 18 (installed is 16): run `nvm use 20` as in .nvmrc first.",
            ],
            "done": [
                "Read src/views/GalleryMap.tsx: draws the floor plan and polls room beacons every 5 s; each floor "
                "change leaks an interval and a move listener.",
                "Kiosk 3's renderer after a day: 1,843,212 KB resident (about 1.8 GB).",
            ],
            "errors": ["`npm test` failed: jest 30 does not support Node 16."],
            "decisions": [
                "Fix the leak in the map view (clear the interval, remove the listener) rather than reload nightly."
            ],
            "now": "Add the cleanup to the effect in GalleryMap.",
            "next": ["Switch Node with nvm and run the tests."],
        },
        "bad": {
            "goal": "Kiosk problems.",
            "done": ["Looked at the app."],
            "decisions": ["Go with a nightly reload of the kiosk app."],
            "now": "Add the cleanup to the effect in GalleryMap.",
            "next": ["Continue."],
        },
    },
    {
        "name": "payrollcsv",
        "format": "claude_code",
        "cwd": "/home/dev/payrollcsv",
        "events": [
            (
                "user",
                "The bank rejects our payroll CSV whenever a name has an accent. Do we transliterate names to ASCII, "
                "or switch the export to UTF-8 with a BOM?",
            ),
            ("say", "Let me check what the export writes today and what the bank's spec says."),
            (
                "tool",
                "read",
                "export/bank_file.py",
                "def write(rows, out):\n    w = csv.writer(open(out, 'w', encoding='latin-1'))\n"
                "    for r in rows: w.writerow([r.iban, r.name, cents(r.net)])\n",
                False,
            ),
            (
                "say",
                "export/bank_file.py is the last step of the payroll run: it writes one line per employee with IBAN, "
                "name and net pay in cents, in Latin-1.",
            ),
            ("tool", "bash", "ls -la out/", listing("payroll"), False),
            (
                "user",
                "Can we avoid reordering the CSV columns? Finance has a macro that reads them by position.",
            ),
            ("user", "How many employees does a run hold these days?"),
            ("tool", "bash", "wc -l out/payroll-2026-11.csv", "1406 out/payroll-2026-11.csv", False),
            ("say", "That's the November file, header included."),
            ("user", "So: transliterate or UTF-8?"),
            (
                "say",
                "UTF-8 with a BOM. The bank's import spec lists it as supported, and transliterating would change "
                "the account holder's name, which the bank compares with the IBAN's owner.",
            ),
            ("user", "Upload a test file to the bank's sandbox."),
            (
                "tool",
                "bash",
                "sftp -b upload.txt payroll@sandbox.bank.example",
                "Connection closed by 203.0.113.40 port 22\nConnection closed",
                True,
            ),
            (
                "say",
                "The sandbox closes the connection because our IP is not on its allowlist, so uploads must go "
                "through the office VPN, whose address the bank has registered.",
            ),
            ("user", "Now switch the writer to UTF-8 with a BOM and add a test with an accented name."),
        ],
        "facts": {
            "concluded": (
                [r"utf-?8"],
                [
                    r"(chose|choose|go with|going with|decided on|use) (ascii )?transliterat\w+|transliterat\w+ names? "
                    r"to ascii[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": (
                [r"allow ?list|whitelist|not (registered|allowed)", r"vpn"],
                [],
            ),
            "measured": ([r"1[, ]?40[56]"], []),
            "asked": (
                [
                    r"column",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged|order)|(don'?t|do not|not|"
                    r"never|avoid) (touch|chang|edit|modif|reorder)\w*",
                ],
                [],
            ),
            "role": ([r"bank_file\.py", r"last step|iban"], []),
            "request": ([r"bom", r"accent"], []),
        },
        "good": {
            "goal": "Make the bank accept the payroll CSV when employee names have accents.",
            "rules": [
                "Don't reorder the CSV columns: Finance's macro reads them by position.",
                "The bank sandbox only allows allowlisted IPs: upload through the office VPN.",
            ],
            "asks": ["So: transliterate or UTF-8?"],
            "done": ["Counted November's file: 1,406 lines including the header (1,405 employees)."],
            "decisions": [
                "Encoding: UTF-8 with a BOM (the bank supports it); transliterating names was rejected as "
                "it changes the account holder's name."
            ],
            "errors": ["sftp upload to the sandbox failed: connection closed (IP not on the allowlist)."],
            "files": [
                "export/bank_file.py: the payroll run's last step, one line per employee (IBAN, name, net pay "
                "in cents), written in Latin-1."
            ],
            "now": "Switch the writer to UTF-8 with a BOM and add a test with an accented name.",
            "next": ["Upload a test file through the VPN."],
        },
        "bad": {
            "goal": "Fix the payroll export.",
            "done": ["Checked the export."],
            "decisions": ["Transliterate names to ASCII, decided."],
            "now": "Switch the writer to a BOM and add a test with an accented name.",
            "next": ["Continue."],
        },
    },
    {
        "name": "dnsupdater",
        "format": "codex",
        "cwd": "/home/dev/dnsupdater",
        "events": [
            (
                "user",
                "Our dynamic DNS updater sometimes publishes the router's internal address. Should it ask an external "
                "echo service for the public IP, or read it from the router's UPnP?",
            ),
            ("say", "I'll read how it finds the address now."),
            (
                "tool",
                "read",
                "src/detect.rs",
                "pub fn current_ip() -> IpAddr {\n    local_ip_address::local_ip().unwrap()\n}\n",
                False,
            ),
            (
                "say",
                "src/detect.rs decides which address gets published: it takes the first local interface's address, "
                "which behind the router is the private 192.168 one.",
            ),
            ("tool", "bash", "ls -la target/", listing("build"), False),
            (
                "user",
                "Is it OK if we keep the TTL on the record at what it is? The registrar charges for lower ones.",
            ),
            ("user", "How long does one update cycle take now?"),
            (
                "tool",
                "bash",
                "hyperfine --runs 5 'target/release/dnsupdater --once --dry-run'",
                "Benchmark 1: target/release/dnsupdater --once --dry-run\n  Time (mean ± σ):     412.3 ms ±  18.1 ms",
                False,
            ),
            ("say", "That's with the dry run, so no API call to the registrar."),
            ("user", "Echo service or UPnP, in the end?"),
            (
                "say",
                "An external echo service, queried over HTTPS with a second one as a fallback. UPnP is switched off "
                "on half of the routers we ship to, and the echo answer is what the outside world sees.",
            ),
            ("user", "Build it for the router."),
            (
                "tool",
                "bash",
                "cargo build --release --target mips-unknown-linux-musl",
                "error[E0463]: can't find crate for `core`\n  = note: the `mips-unknown-linux-musl` target may not be "
                "installed",
                True,
            ),
            (
                "say",
                "The MIPS target is tier 3 and has no prebuilt standard library, so the router build has to use "
                "`cross` (or nightly with build-std) instead of plain cargo.",
            ),
            ("user", "Now replace current_ip with the echo-service lookup and its fallback."),
        ],
        "facts": {
            "concluded": (
                [r"echo (service|server)|external[^.\n]{0,20}(service|lookup)"],
                [
                    r"(chose|choose|go with|going with|decided on|use|read) (the )?(router'?s? )?upnp[^.\n]{0,20}"
                    r"(chosen|decided|instead)?"
                ],
            ),
            "learnt": (
                [r"mips|tier 3|no prebuilt|build-std", r"\bcross\b|nightly"],
                [],
            ),
            "measured": ([r"412(\.3)? ?ms|0\.41 ?s"], []),
            "asked": (
                [
                    r"\bttl\b",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged|what it is)|(don'?t|do not|"
                    r"not|never|avoid) (touch|chang|edit|modif|lower)\w*",
                ],
                [],
            ),
            "role": ([r"detect\.rs", r"(which|what) address|first local|private|192\.168"], []),
            "request": ([r"current_ip", r"fallback"], []),
        },
        "good": {
            "goal": "Stop the dynamic DNS updater from publishing the router's internal address.",
            "rules": [
                "Keep the record's TTL unchanged: the registrar charges for lower ones.",
                "The mips-unknown-linux-musl target has no prebuilt std: build for the router with `cross`.",
            ],
            "done": ["Timed one dry-run update cycle: 412.3 ms mean."],
            "decisions": [
                "Public IP from an external echo service over HTTPS with a second as fallback; UPnP rejected (off on "
                "half the routers).",
            ],
            "errors": ["`cargo build --target mips-unknown-linux-musl` failed: can't find crate for core."],
            "files": [
                "src/detect.rs: picks the address to publish; takes the first local interface (private "
                "192.168 behind the router)."
            ],
            "now": "Replace current_ip with the echo-service lookup and its fallback.",
            "next": ["Build for the router with cross."],
        },
        "bad": {
            "goal": "DNS updater fixes.",
            "done": ["Read code, tried a build."],
            "decisions": ["Read the public IP from the router's UPnP, decided."],
            "now": "Replace current_ip with the new lookup and a fallback.",
            "next": ["Continue."],
        },
    },
    {
        "name": "recipebox",
        "format": "pi",
        "cwd": "/home/dev/recipebox",
        "events": [
            (
                "user",
                "Searching 'creme brulee' finds nothing because the recipes say 'crème brûlée'. Do we fold accents "
                "in Postgres with unaccent, or move search to Meilisearch?",
            ),
            ("say", "Let me read the search query first."),
            (
                "tool",
                "read",
                "lib/recipebox/search.ex",
                'def search(term) do\n  from r in Recipe, where: ilike(r.title, ^"%#{term}%")\nend\n',
                False,
            ),
            (
                "say",
                "lib/recipebox/search.ex backs the search box on every page: it runs a single ILIKE on the recipe "
                "title, so accents and word order both have to match exactly.",
            ),
            ("tool", "bash", "ls -la priv/static/images/", listing("photo"), False),
            ("user", "Could you not change the recipe URLs? Half our traffic comes from Pinterest pins."),
            ("user", "How big is the recipes table?"),
            ("tool", "bash", "psql -Atc 'select count(*) from recipes' recipebox_dev", "9312", False),
            ("say", "There it is."),
            ("user", "Right, unaccent or Meilisearch? What do you recommend?"),
            (
                "say",
                "unaccent in Postgres. At this size a trigram index with unaccent is fast enough, and it spares us "
                "running and syncing a second service.",
            ),
            ("user", "Enable the extension on the dev database."),
            (
                "tool",
                "bash",
                "psql -c 'create extension unaccent' recipebox_dev",
                'ERROR:  permission denied to create extension "unaccent"\nHINT:  Must be superuser to create this '
                "extension.",
                True,
            ),
            (
                "say",
                "Creating an extension needs a superuser, which the app's role is not, so the extension has to be "
                "created in a migration run as the postgres user.",
            ),
            ("user", "Now write that migration and switch the query to unaccent."),
        ],
        "facts": {
            "concluded": (
                [r"unaccent"],
                [r"(chose|choose|go with|going with|decided on|use) meilisearch"],
            ),
            "learnt": (
                [r"superuser", r"postgres user|as postgres|migration"],
                [],
            ),
            "measured": ([r"9[, ]?312|9\.3 ?k"], []),
            "asked": (
                [
                    r"recipe urls?|urls?",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif)\w*",
                ],
                [],
            ),
            "role": ([r"search\.ex", r"search box|ilike"], []),
            "request": ([r"migration", r"query"], []),
        },
        "good": {
            "goal": "Make recipe search find titles whatever the accents ('creme brulee' finds 'crème brûlée').",
            "rules": [
                "Don't change the recipe URLs: half the traffic comes from Pinterest pins.",
                "The app's role is not a superuser: create the unaccent extension in a migration run as the postgres "
                "user.",
            ],
            "done": [
                "Read lib/recipebox/search.ex: backs the search box, a single ILIKE on the title.",
                "Recipes table: 9,312 rows.",
            ],
            "errors": ["`create extension unaccent` failed: permission denied (must be superuser)."],
            "decisions": [
                "Fold accents with unaccent plus a trigram index in Postgres; Meilisearch rejected (a second "
                "service to run and sync)."
            ],
            "now": "Write that migration and switch the query to unaccent.",
            "next": ["Run the migration as postgres on dev."],
        },
        "bad": {
            "goal": "Search improvements.",
            "done": ["Looked at search."],
            "decisions": ["Move search to Meilisearch."],
            "now": "Write the migration and switch the query.",
            "next": ["Continue."],
        },
    },
    {
        "name": "telemetry",
        "format": "claude_code",
        "cwd": "/home/dev/telemetry",
        "events": [
            (
                "user",
                "Match telemetry from the game servers arrives out of order and our session graphs have holes. "
                "Should we reorder in the consumer with a small buffer, or key the Kafka topic by match id?",
            ),
            ("say", "I'll look at the producer and the consumer before I answer."),
            (
                "tool",
                "read",
                "ingest/consumer.go",
                "func (c *Consumer) Run() {\n  for msg := range c.sub.Messages() {\n    c.sink.Append(decode(msg))\n  }\n}\n",
                False,
            ),
            (
                "say",
                "ingest/consumer.go is the one process that writes events into ClickHouse: it appends each Kafka "
                "message as it arrives, so whatever order the partitions deliver is the order stored.",
            ),
            ("tool", "bash", "ls -la dashboards/", listing("panel"), False),
            (
                "user",
                "Would you mind not renaming the event fields? The analytics team's notebooks query them by name.",
            ),
            ("user", "What's the consumer lag right now?"),
            (
                "tool",
                "bash",
                "kafka-consumer-groups --bootstrap-server kafka:9092 --describe --group ingest | tail -1",
                "ingest  match-events  11  4419822  4427061  7239",
                False,
            ),
            ("say", "That last column is the lag for partition 11, the busiest one."),
            ("user", "So which — buffer in the consumer or key by match id?"),
            (
                "say",
                "Key the topic by match id. Kafka keeps order within a partition, so every event of a match lands in "
                "one partition in order, and the consumer stays a plain append with no buffer to tune.",
            ),
            ("user", "Check the producer tests."),
            (
                "tool",
                "bash",
                "go test ./producer/...",
                "--- FAIL: TestPublish (0.00s)\n    publish_test.go:31: dial tcp 127.0.0.1:9092: connect: connection "
                "refused\nFAIL",
                True,
            ),
            (
                "say",
                "The producer tests need a Kafka broker on localhost and none runs here, so they have to be run with "
                "`docker compose up kafka` started first.",
            ),
            ("user", "Now set the message key to the match id in the producer."),
        ],
        "facts": {
            "concluded": (
                [r"(key|keyed|keying)[^.\n]{0,30}match[ _]id"],
                [
                    r"(chose|choose|go with|going with|decided on|use) (a )?(small )?buffer|reorder(ing)? in the consumer"
                    r"[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": (
                [r"broker|kafka[^.\n]{0,30}(localhost|local|running)|connection refused", r"docker compose"],
                [],
            ),
            "measured": ([r"7[, ]?239|7\.2 ?k"], []),
            "asked": (
                [
                    r"event fields?|field names?",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif|renam)\w*",
                ],
                [],
            ),
            "role": ([r"consumer\.go", r"clickhouse"], []),
            "request": ([r"message key|key", r"producer"], []),
        },
        "good": {
            "goal": "Close the holes in session graphs caused by match telemetry arriving out of order.",
            "rules": [
                "Don't rename the event fields: the analytics notebooks query them by name.",
                "Producer tests need a local Kafka broker: start `docker compose up kafka` first.",
            ],
            "asks": ["So which — buffer in the consumer or key by match id?"],
            "done": ["Consumer lag on partition 11 (busiest): 7,239 messages."],
            "decisions": [
                "Key the Kafka topic by match id so each match stays ordered in one partition; a reordering "
                "buffer in the consumer was rejected."
            ],
            "errors": ["`go test ./producer/...` failed: connection refused on 127.0.0.1:9092."],
            "files": ["ingest/consumer.go: the only writer into ClickHouse, appending messages in arrival order."],
            "now": "Set the message key to the match id in the producer.",
            "next": ["Start Kafka with docker compose and run the producer tests."],
        },
        "bad": {
            "goal": "Telemetry ordering.",
            "done": ["Looked at ingest."],
            "decisions": ["Use a small buffer to reorder events."],
            "now": "Set the message key in the producer.",
            "next": ["Continue."],
        },
    },
    {
        "name": "thumbnailer",
        "format": "codex",
        "cwd": "/home/dev/thumbnailer",
        "events": [
            (
                "user",
                "Thumbnails of big PNG uploads time out. Generate them in a background queue, or downscale on "
                "upload with a faster library? Which one?",
            ),
            ("say", "Let me read the handler before I choose."),
            (
                "tool",
                "read",
                "app/thumbs.py",
                "@app.post('/upload')\ndef upload(f):\n    img = Image.open(f)\n    img.thumbnail((320, 320))\n"
                "    store(img)\n",
                False,
            ),
            (
                "say",
                "app/thumbs.py is the upload endpoint itself: it decodes the full image and resizes it inside the "
                "HTTP request, so a 40-megapixel PNG holds the request until the gateway gives up.",
            ),
            ("tool", "bash", "ls -la uploads/", listing("upload"), False),
            ("user", "Can we leave the thumbnail URL scheme as is? The mobile app builds those URLs itself."),
            ("user", "How slow is the worst one?"),
            (
                "tool",
                "bash",
                "python bench/thumb.py samples/panorama.png",
                "decode 6.81 s\nresize 2.07 s\ntotal 8.88 s",
                False,
            ),
            ("say", "That's the panorama sample, our largest."),
            ("user", "Queue or faster library, then?"),
            (
                "say",
                "A background queue. The request then only stores the original and returns, and no library makes a "
                "40-megapixel decode fit in the gateway's timeout for every upload.",
            ),
            ("user", "Start the worker locally."),
            (
                "tool",
                "bash",
                "celery -A app.worker worker",
                "Error: Cannot connect to redis://localhost:6379/0: Error 111 connecting to localhost:6379. "
                "Connection refused.",
                True,
            ),
            (
                "say",
                "The worker needs Redis as its broker and nothing listens on 6379 here, so the worker can only be "
                "started after `docker run -p 6379:6379 redis:7`.",
            ),
            ("user", "Now move the resize into a Celery task and return 202 from the upload."),
        ],
        "facts": {
            "concluded": (
                [r"(background|celery) (queue|task|worker)|queue"],
                [
                    r"(chose|choose|go with|going with|decided on|use) (a )?faster library|downscal\w+ on upload[^.\n]"
                    r"{0,20}(chosen|decided)"
                ],
            ),
            "learnt": (
                [r"redis", r"6379|docker run"],
                [],
            ),
            "measured": ([r"8\.88 ?s|6\.81 ?s|8\.9 ?s|nine seconds"], []),
            "asked": (
                [
                    r"url scheme|thumbnail urls?",
                    r"(leav\w*|left|keep\w*)[^.\n]{0,50}(alone|as (it )?is|untouched|unchanged)|(don'?t|do not|not|never|avoid) "
                    r"(touch|chang|edit|modif)\w*",
                ],
                [],
            ),
            "role": ([r"thumbs\.py", r"upload endpoint|inside the (http )?request|in the request"], []),
            "request": ([r"celery task|task", r"202"], []),
        },
        "good": {
            "goal": "Stop thumbnail generation for big PNG uploads from timing out.",
            "rules": [
                "Leave the thumbnail URL scheme as is: the mobile app builds those URLs itself.",
                "The Celery worker needs Redis on 6379: start it with `docker run -p 6379:6379 redis:7` first.",
            ],
            "done": ["Benchmarked the largest sample (panorama.png): 8.88 s total (decode 6.81 s)."],
            "decisions": ["Thumbnails in a background queue (Celery); a faster library on upload was rejected."],
            "errors": ["`celery -A app.worker worker` failed: connection refused on localhost:6379."],
            "files": ["app/thumbs.py: the upload endpoint, decoding and resizing inside the HTTP request."],
            "now": "Move the resize into a Celery task and return 202 from the upload.",
            "next": ["Start Redis and the worker locally."],
        },
        "bad": {
            "goal": "Thumbnail performance.",
            "done": ["Ran a benchmark."],
            "decisions": ["Use a faster library to downscale on upload."],
            "now": "Return 202 from the upload.",
            "next": ["Continue."],
        },
    },
]
