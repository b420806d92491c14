"""The implicit facts' third round: new projects, in pi, Claude Code and Codex format.

Written by hand, as rounds 1 and 2 (implicit_cases.py describes the six kinds: `concluded`,
`learnt`, `measured`, `asked`, `role`, `request`; implicit2_cases.py the per-case fields), in
new themes and wordings, and with judges that ask for each fact's function, not the words
around it: a which-way question copied without its answer does not keep `concluded` (the
judge wants the answer and what it was chosen over or why), a failing command copied without
what it taught does not keep `learnt` (the judge wants the remedy), a file named without what
it does does not keep `role`. The which-way question is put as "would you …, or …?", "which
would you go for", "what's your take"; the failing command is a full disk, an expired
certificate, a port in use, a quota, a missing variable; the rule asked as a question is "any
chance we can leave …", "is there a way to do this without touching …", "could X stay …".

The good summaries restate every fact in their own words, as a careful model does (not the
session's sentences); the bad ones are vague and state the decision otherwise.

HELD_OUT was written and committed first, before any audit change of round 3 and before the
audit was run on any of it, and is never tuned on.
"""

from __future__ import annotations

from bench.truth.implicit_cases import Case, listing

# a rule asked as a question, kept: the rule's object, and keeping it as it is / not changing it
KEEP = (
    r"(leav\w*|left|keep\w*|stay\w*)[^.\n]{0,50}(alone|as (it |they )?(is|are)|untouched|unchanged|the same)|"
    r"(don'?t|do not|not|never|avoid|no|without) (touch|chang|edit|modif|alter)\w*"
)

HELD_OUT: list[Case] = [
    {
        "name": "parkingmeter",
        "format": "codex",
        "cwd": "/home/dev/parkingmeter",
        "events": [
            (
                "user",
                "Card payments at the parking meters time out when the 4G signal drops. Would you queue the payment "
                "on the meter and retry, or hand the card to the terminal's offline mode?",
            ),
            ("say", "Let me see how the meter talks to the payment gateway first."),
            (
                "tool",
                "read",
                "firmware/pay_client.c",
                "int pay(card_t *c, int cents) {\n  return http_post(GATEWAY, c->token, cents, 3000);\n}\n",
                False,
            ),
            (
                "say",
                "firmware/pay_client.c is the only code path that reaches the payment gateway: it posts the card "
                "token and the amount, and gives up after three seconds.",
            ),
            ("tool", "bash", "ls -la logs/", listing("meter"), False),
            (
                "user",
                "Any chance we can leave the coin slot driver as it is? The city certified it last spring.",
            ),
            ("user", "How many payments failed last week?"),
            ("tool", "bash", "grep -c PAY_TIMEOUT logs/week48.log", "2318", False),
            ("say", "That count covers every meter in the city."),
            ("user", "Right. Queue-and-retry or offline mode?"),
            (
                "say",
                "The terminal's offline mode. The card schemes certify it to store up to 50 transactions and "
                "forward them later, whereas a queue of our own would keep card data on the meter, which our PCI "
                "scope does not allow.",
            ),
            ("user", "Build the firmware."),
            (
                "tool",
                "bash",
                "make firmware",
                "arm-none-eabi-gcc: fatal error: cannot write output: No space left on device\n"
                "make: *** [Makefile:41: build/meter.elf] Error 1",
                True,
            ),
            (
                "say",
                "The build volume is full: the old images in build/archive take it up, so they have to be cleared "
                "with `make clean-archive` before any build.",
            ),
            (
                "user",
                "Now turn on the terminal's offline mode in pay_client.c and log when it forwards stored payments.",
            ),
        ],
        "facts": {
            "concluded": (
                [r"offline mode", r"pci|card schemes|up to 50|rather than|instead of|rejected"],
                [
                    r"\b(chose|choose|go with|going with|decided on|use)\b[^.\n]{0,20}(a |our own )?(retry queue|queue)"
                    r"|queue[^.\n]{0,40}retry[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": ([r"no space|full|out of (disk )?space", r"clean-archive|build/archive|old images"], []),
            "measured": ([r"2[, ]?318"], []),
            "asked": ([r"coin slot", KEEP], []),
            "role": ([r"pay_client\.c", r"only (code path|place)|one place|card token"], []),
            "request": ([r"offline mode", r"\blog", r"forward"], []),
        },
        "good": {
            "goal": "Keep parking-meter card payments working when a meter loses its 4G signal.",
            "rules": [
                "Don't modify the coin slot driver: the city certified it.",
                "The build disk is full of old images under build/archive: run `make clean-archive` before building.",
            ],
            "done": ["Payment timeouts in last week's logs, all meters together: 2,318."],
            "decisions": [
                "Let the terminal's offline mode hold payments (scheme-certified, up to 50 stored and forwarded "
                "later) rather than a retry queue on the meter, which would put card data outside our PCI scope."
            ],
            "errors": ["`make firmware` stopped: no space left on the device."],
            "files": [
                "firmware/pay_client.c: the one place that calls the payment gateway (sends card token and amount, "
                "3 s timeout)."
            ],
            "now": "Enable the terminal's offline mode in pay_client.c and log each forward of stored payments.",
            "next": ["Clear the archive, then build the firmware."],
        },
        "bad": {
            "goal": "Meter payments.",
            "done": ["Looked into it."],
            "decisions": ["Queue payments on the meter and retry them, decided."],
            "now": "Turn on offline mode in pay_client.c and log forwarded payments.",
            "next": ["Continue."],
        },
    },
    {
        "name": "choirrota",
        "format": "pi",
        "cwd": "/home/dev/choirrota",
        "events": [
            (
                "user",
                "The choir's rota app sends the rehearsal reminder twice to some singers. Which would you go for: "
                "dedupe the recipients when the reminder is built, or put a unique index on the sent-log table?",
            ),
            ("say", "I'll look at where the reminders are put together before I answer."),
            (
                "tool",
                "read",
                "app/jobs/reminder_job.rb",
                "class ReminderJob\n  def perform(rehearsal)\n    rehearsal.sections.flat_map(&:singers).each { |s| "
                "Mailer.remind(s, rehearsal).deliver_later }\n  end\nend\n",
                False,
            ),
            (
                "say",
                "app/jobs/reminder_job.rb runs the evening before each rehearsal and mails every singer of every "
                "section taking part; a singer in two sections is mailed twice.",
            ),
            ("tool", "bash", "ls -la storage/", listing("upload"), False),
            (
                "user",
                "Is there a way to do this without touching the sections page? The conductor has just got used to it.",
            ),
            ("user", "How many singers are in more than one section?"),
            (
                "tool",
                "bash",
                "bin/rails runner 'puts Membership.group(:singer_id).having(\"count(*) > 1\").count.size'",
                "37",
                False,
            ),
            ("say", "There's the number, from the production copy of the database."),
            ("user", "So dedupe or unique index, what's your take?"),
            (
                "say",
                "Dedupe when the reminder is built: take the distinct singers before mailing. A unique index would "
                "turn the second mail into a failed job every week instead of not sending it.",
            ),
            ("user", "Run the test suite."),
            (
                "tool",
                "bash",
                "bin/rails test",
                'ActiveRecord::ConnectionNotEstablished: connection to server at "localhost" (::1), port 5432 '
                'failed: FATAL:  database "choirrota_test" does not exist',
                True,
            ),
            (
                "say",
                "The test database was never created on this machine; `bin/rails db:test:prepare` has to run once "
                "before the tests can start.",
            ),
            ("user", "Now make the reminder job mail each singer once and add a test for a singer in two sections."),
        ],
        "facts": {
            "concluded": (
                [
                    r"dedup|distinct|uniq\b|once per singer|each singer once",
                    r"unique index|rather than|instead of|not "
                    r"an? index|failed job",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on|use|add)\b[^.\n]{0,20}(a )?unique index[^.\n]{0,30}"
                    r"(chosen|decided|instead)|unique index[^.\n]{0,30}(chosen|decided)"
                ],
            ),
            "learnt": ([r"db:test:prepare|creat\w*[^.\n]{0,20}test database"], []),
            "measured": ([r"\b37\b"], []),
            "asked": ([r"sections page", KEEP], []),
            "role": ([r"reminder_job\.rb", r"night.before|evening before|every section"], []),
            "request": ([r"once", r"two sections|both sections|several sections|more than one section"], []),
        },
        "good": {
            "goal": "Stop the choir rota app from sending a singer the rehearsal reminder twice.",
            "rules": [
                "The sections page stays as it is (the conductor is used to it).",
                "Before the tests, create the test database once with `bin/rails db:test:prepare`.",
            ],
            "done": [
                "37 singers belong to more than one section (production data).",
                "`bin/rails test` errored: the test database does not exist on this machine.",
            ],
            "now": "Send the reminder to each singer once; add a test with a singer in two sections.",
            "decisions": [
                "Deduplicate the recipients when building the reminder (distinct singers); a unique index on the "
                "sent log was turned down since it only turns the duplicate into a weekly failed job."
            ],
            "next": ["Prepare the test database and run the suite."],
            "files": [
                "app/jobs/reminder_job.rb: the night-before job that mails every singer of every section in the "
                "rehearsal."
            ],
        },
        "bad": {
            "goal": "Reminder issue.",
            "done": ["Checked some code."],
            "decisions": ["Add a unique index on the sent-log table, decided."],
            "now": "Mail each singer once and test a singer in two sections.",
            "next": ["Continue."],
        },
    },
    {
        "name": "invoicepdf",
        "format": "claude_code",
        "cwd": "/home/dev/invoicepdf",
        "events": [
            (
                "user",
                "Our invoice PDFs come out blank on the new server. Would you swap wkhtmltopdf for headless Chrome, "
                "or install the fonts wkhtmltopdf is missing?",
            ),
            ("say", "Let me check how the PDFs are rendered today."),
            (
                "tool",
                "read",
                "billing/render.py",
                "def render(invoice):\n    html = TEMPLATE.render(invoice=invoice)\n"
                "    return subprocess.run(['wkhtmltopdf', '-', '-'], input=html, capture_output=True).stdout\n",
                False,
            ),
            (
                "say",
                "billing/render.py fills the invoice template with the customer's lines and pipes the HTML through "
                "wkhtmltopdf; it is called for every invoice the monthly run produces and for reprints.",
            ),
            ("tool", "bash", "ls -la templates/", listing("tpl"), False),
            (
                "user",
                "Could the invoice numbering stay exactly as it is? The tax office audits the sequence.",
            ),
            ("user", "How big is a typical invoice PDF on the old server?"),
            ("tool", "bash", "du -k archive/2026-10/INV-104233.pdf", "412\tarchive/2026-10/INV-104233.pdf", False),
            ("say", "That one has two pages of lines, which is usual."),
            ("user", "Chrome or fonts then?"),
            (
                "say",
                "Install the fonts. The blank pages come from wkhtmltopdf finding no font on the new image; headless "
                "Chrome would add a 300 MB browser to the server to fix a missing package.",
            ),
            ("user", "Render one invoice to check."),
            (
                "tool",
                "bash",
                "python -m billing.render INV-104233",
                "requests.exceptions.SSLError: HTTPSConnectionPool(host='assets.billing.internal', port=443): "
                "certificate verify failed: certificate has expired",
                True,
            ),
            (
                "say",
                "The template loads the logo from assets.billing.internal, whose certificate has expired, so until "
                "ops renews it the render needs the logo from the local static folder.",
            ),
            ("user", "Now add the fonts to the Dockerfile and point the logo at the local static copy."),
        ],
        "facts": {
            "concluded": (
                [
                    r"fonts?",
                    r"rather than|instead of|not (headless )?chrome|chrome[^.\n]{0,40}(rejected|turned down|"
                    r"too big|300 ?mb)|no font",
                ],
                [
                    r"\b(switch\w* to|go with|going with|chose|decided on)\b[^.\n]{0,10}(headless )?chrome|headless chrome"
                    r"[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": ([r"expired", r"renew|until"], []),
            "measured": ([r"\b412\b|0\.4 ?mb|400 ?kb"], []),
            "asked": ([r"invoice number|numbering", KEEP], []),
            "role": ([r"render\.py", r"template|every invoice|monthly run|reprint"], []),
            "request": ([r"fonts?", r"dockerfile", r"logo"], []),
        },
        "good": {
            "goal": "Invoices render as blank PDFs on the new server; make them render again.",
            "rules": [
                "Keep invoice numbers unchanged: the tax office audits the sequence.",
                "The assets host's TLS certificate has expired: take the logo from the local static folder until "
                "ops renews it.",
            ],
            "asks": ["Chrome or fonts then?"],
            "done": ["An ordinary two-page invoice on the old server is 412 KB."],
            "decisions": [
                "Fix: install the missing fonts (the new image has none, hence blank pages), not headless Chrome, "
                "which would add a 300 MB browser."
            ],
            "errors": ["Test render of INV-104233 failed with an SSL error: expired certificate on the assets host."],
            "files": [
                "billing/render.py: turns an invoice into HTML through the template and runs it through wkhtmltopdf; "
                "used by the monthly run and by reprints."
            ],
            "now": "Add the fonts to the Dockerfile and load the logo from the local static copy.",
            "next": ["Render INV-104233 again."],
        },
        "bad": {
            "goal": "PDF issue.",
            "done": ["Looked at the renderer."],
            "decisions": ["Switch to headless Chrome, decided."],
            "now": "Add fonts to the Dockerfile and use the local logo.",
            "next": ["Continue."],
        },
    },
    {
        "name": "bikeshare",
        "format": "pi",
        "cwd": "/home/dev/bikeshare",
        "events": [
            (
                "user",
                "The dock map shows bikes that were taken minutes ago. Should the app poll the stations more often, "
                "or subscribe to the operator's GBFS push feed?",
            ),
            ("say", "I'll read the station fetcher first."),
            (
                "tool",
                "read",
                "lib/stations/fetch.dart",
                "Future<void> refresh() async {\n  final res = await http.get(Uri.parse('$base/station_status.json'));\n"
                "  cache.replaceAll(parse(res.body));\n}\n",
                False,
            ),
            (
                "say",
                "lib/stations/fetch.dart keeps the dock map's numbers: it downloads every station's status from the "
                "operator and overwrites the cache the map draws from.",
            ),
            ("tool", "bash", "ls -la assets/icons/", listing("icon"), False),
            ("user", "Can we not change the colours of the dock pins? People know them by now."),
            ("user", "How often does it refresh today?"),
            (
                "tool",
                "bash",
                "grep -rn 'Duration(' lib/stations/",
                "lib/stations/timer.dart:7:  Duration(seconds: 90)",
                False,
            ),
            ("say", "That's the only timer in the stations code."),
            ("user", "Poll faster or the push feed, which one?"),
            (
                "say",
                "The push feed. Polling faster would cost every phone battery and the operator caps us at one request "
                "a minute anyway, while the feed sends a dock's change within seconds.",
            ),
            ("user", "Start the app on the emulator."),
            (
                "tool",
                "bash",
                "flutter run -d emulator-5554",
                "Error: Port 8080 is already in use by another process (pid 4471, node).\nFailed to start the dev "
                "proxy.",
                True,
            ),
            (
                "say",
                "An old dev server of the web dashboard still holds port 8080; the app's dev proxy needs it, so "
                "that process must be stopped, or the proxy moved with `--proxy-port 8081`.",
            ),
            ("user", "Now replace the timer with a subscription to the GBFS feed and keep the cache update as it is."),
        ],
        "facts": {
            "concluded": (
                [
                    r"push|subscri|feed",
                    r"rather than|instead of|not (by )?poll|poll\w*[^.\n]{0,40}(rejected|battery|"
                    r"cap|one request|limit)",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on|decided)\b[^.\n]{0,25}(faster |more frequent )?"
                    r"poll|poll\w* (more often|faster)[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": ([r"8080", r"8081|proxy-port|stop (it|that|the old|the process)|kill"], []),
            "measured": ([r"\b90 ?(s\b|sec)|90 seconds|1\.5 ?min|every 90"], []),
            "asked": ([r"colou?rs?", KEEP], []),
            "role": ([r"fetch\.dart", r"status|replaces the cache|overwrites"], []),
            "request": ([r"timer", r"gbfs|feed|subscri"], []),
        },
        "good": {
            "goal": "Make the dock map stop showing bikes that are already gone.",
            "rules": [
                "Leave the dock pins' colours alone (users know them).",
                "The dev proxy needs port 8080, held by an old dashboard dev server: stop it or start with "
                "`--proxy-port 8081`.",
            ],
            "done": [
                "The stations code refreshes on a single timer of 90 s.",
                "Emulator start failed: port 8080 taken (pid 4471).",
            ],
            "now": "Swap the timer for a GBFS feed subscription; the cache update stays.",
            "decisions": [
                "Subscribe to the operator's push feed instead of polling faster (battery, and the operator allows "
                "one request a minute; the feed reports within seconds)."
            ],
            "next": ["Free the port and run the app on the emulator."],
            "files": ["lib/stations/fetch.dart: pulls every station's status and replaces the cache the map reads."],
        },
        "bad": {
            "goal": "Map is stale.",
            "done": ["Read a file."],
            "decisions": ["Go with polling the stations more often."],
            "now": "Replace the timer with the GBFS feed.",
            "next": ["Continue."],
        },
    },
    {
        "name": "weatherstation",
        "format": "claude_code",
        "cwd": "/home/dev/weatherstation",
        "events": [
            (
                "user",
                "The rooftop weather station reports rain totals that reset at random times. Do we store the running "
                "total on the SD card, or keep it in the RTC's battery-backed memory?",
            ),
            ("say", "I'd like to read the rain gauge code before deciding."),
            (
                "tool",
                "read",
                "src/rain.cpp",
                "volatile uint32_t tips = 0;\nvoid IRAM_ATTR onTip() { tips++; }\nfloat rainMm() { return tips * "
                "0.2794f; }\n",
                False,
            ),
            (
                "say",
                "src/rain.cpp counts the tipping bucket's pulses in an interrupt and turns them into millimetres; the "
                "count lives only in RAM, so every brown-out or watchdog reset starts it again from zero.",
            ),
            ("tool", "bash", "ls -la data/", listing("csv"), False),
            ("user", "Would it be OK to keep the upload interval as it is? The met office feed expects it."),
            ("user", "How many resets did the station log in November?"),
            ("tool", "bash", "grep -c 'rst:' logs/2026-11.log", "64", False),
            ("say", "That's from the boot messages on the serial log."),
            ("user", "SD card or RTC memory?"),
            (
                "say",
                "The RTC memory. It survives brown-outs and resets as long as the coin cell lasts and takes a write "
                "on every tip without wearing out, which the SD card would not; a card also corrupts when power "
                "drops mid-write.",
            ),
            ("user", "Flash the board."),
            (
                "tool",
                "bash",
                "pio run -t upload",
                "Error: Please specify `upload_port` for environment or use global `--upload-port` option.\n"
                "*** [upload] Explicit exit, status 1",
                True,
            ),
            (
                "say",
                "PlatformIO finds no serial port by itself because the board shows up as /dev/ttyACM0 only after "
                "its boot button is held, so the port has to be passed as `--upload-port /dev/ttyACM0`.",
            ),
            ("user", "Now keep the tip count in RTC memory and restore it at boot."),
        ],
        "facts": {
            "concluded": (
                [r"rtc", r"rather than|instead of|not (on )?the sd|sd[^.\n]{0,40}(wear|corrupt|rejected|turned down)"],
                [
                    r"\b(chose|choose|go with|going with|decided on|store it on|use)\b[^.\n]{0,20}(the )?sd[ -]card"
                    r"[^.\n]{0,20}(chosen|decided)|sd[ -]card[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": ([r"ttyacm0", r"boot button"], []),
            "measured": ([r"\b64\b"], []),
            "asked": ([r"upload interval|interval", KEEP], []),
            "role": ([r"rain\.cpp", r"tipping|bucket|pulse|millimet|\bmm\b"], []),
            "request": ([r"rtc", r"boot|restore"], []),
        },
        "good": {
            "goal": "Stop the weather station's rain total from resetting at random.",
            "rules": [
                "Leave the upload interval unchanged: the met office feed relies on it.",
                "Flashing: the board appears as /dev/ttyACM0 only with the boot button held, so pass "
                "`--upload-port /dev/ttyACM0`.",
            ],
            "asks": ["SD card or RTC memory?"],
            "done": ["November's serial log shows 64 resets."],
            "decisions": [
                "Persist the count in the battery-backed RTC memory rather than on the SD card (no wear on a write per "
                "tip, no corruption when power drops)."
            ],
            "errors": ["`pio run -t upload` stopped: no upload port found."],
            "files": [
                "src/rain.cpp: counts the rain bucket's tips in an interrupt and converts them to mm; the count is "
                "RAM only, so any reset zeroes it."
            ],
            "now": "Hold the tip count in RTC memory and restore it at boot.",
            "next": ["Flash with the port given."],
        },
        "bad": {
            "goal": "Rain numbers.",
            "done": ["Looked at the code."],
            "decisions": ["Store the running total on the SD card, decided."],
            "now": "Keep the tip count in RTC memory and restore it at boot.",
            "next": ["Continue."],
        },
    },
    {
        "name": "quizapp",
        "format": "codex",
        "cwd": "/home/dev/quizapp",
        "events": [
            (
                "user",
                "The pub quiz app's leaderboard lags by half a minute on quiz night. Would you cache the scores in "
                "Redis, or push score changes to the screens over websockets?",
            ),
            ("say", "First I'll look at how the leaderboard gets its scores."),
            (
                "tool",
                "read",
                "server/leaderboard.js",
                "router.get('/board/:quiz', async (req, res) => {\n  const rows = await db.query(SUM_SQL, "
                "[req.params.quiz]);\n  res.json(rows);\n});\n",
                False,
            ),
            (
                "say",
                "server/leaderboard.js answers the big screen's request by summing every team's answers in the "
                "database each time; the screens ask again every 30 seconds.",
            ),
            ("tool", "bash", "ls -la public/img/", listing("img"), False),
            ("user", "Is it alright if the team names stay as they are typed? Some teams are very attached to emoji."),
            ("user", "How long does that sum take on a full night?"),
            (
                "tool",
                "bash",
                "psql quiz -c 'explain analyze select team, sum(points) from answers where quiz = 812 group by team'",
                "HashAggregate ... (actual time=1874.220..1874.301 rows=46 loops=1)\nExecution Time: 1874.612 ms",
                False,
            ),
            ("say", "That's last Thursday's quiz, 46 teams."),
            ("user", "Redis or websockets, your call."),
            (
                "say",
                "Websockets. The lag is the screens asking only every 30 seconds, not a slow read, so a cache would "
                "still leave them half a minute behind; pushing each marked answer puts it on the screen at once.",
            ),
            ("user", "Deploy the branch to the staging box."),
            (
                "tool",
                "bash",
                "fly deploy --app quiz-staging",
                "Error: failed to fetch an image or build from source: organization has reached its build minutes "
                "quota for this month",
                True,
            ),
            (
                "say",
                "The organization has used up this month's remote build minutes, so staging deploys have to build "
                "the image locally with `--local-only` until the quota resets on the 1st.",
            ),
            ("user", "Now push score changes over a websocket and make the big screen listen instead of polling."),
        ],
        "facts": {
            "concluded": (
                [
                    r"websocket|web socket|push",
                    r"rather than|instead of|not (a )?(redis|cache)|redis[^.\n]{0,50}"
                    r"(rejected|turned down|still|behind)|cache[^.\n]{0,40}(still|behind|wouldn)",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on)\b[^.\n]{0,20}(a )?redis|redis[^.\n]{0,30}(chosen|decided)"
                ],
            ),
            "learnt": ([r"quota|build minutes", r"local-only|locally|local build"], []),
            "measured": ([r"1[, ]?87[45]|1\.9 ?s|1\.87 ?s|nearly two seconds"], []),
            "asked": ([r"team names?", KEEP], []),
            "role": ([r"leaderboard\.js", r"every team|per request"], []),
            "request": ([r"websocket|web socket", r"listen|instead of polling|stop polling|no polling"], []),
        },
        "good": {
            "goal": "Cut the leaderboard's half-minute lag on quiz nights.",
            "rules": [
                "Team names are shown exactly as typed (emoji included) — no changes to them.",
                "Remote builds are out of quota this month: deploy to staging with `--local-only` until the 1st.",
            ],
            "done": ["Summing a full night (quiz 812, 46 teams) takes 1,874 ms in the database."],
            "decisions": [
                "Push each marked answer to the screens over websockets instead of a Redis cache: the lag is the "
                "30 s polling, which a cache would not remove."
            ],
            "errors": ["`fly deploy` to quiz-staging refused: build minutes quota used up."],
            "files": [
                "server/leaderboard.js: serves the big screen by summing every team's answers in the database per "
                "request."
            ],
            "now": "Send score changes over a websocket and have the big screen listen rather than poll.",
            "next": ["Deploy to staging with a local build."],
        },
        "bad": {
            "goal": "Leaderboard speed.",
            "done": ["Looked at the server."],
            "decisions": ["Go with a Redis cache for the scores, decided."],
            "now": "Push score changes over a websocket; the screen should listen instead of polling.",
            "next": ["Continue."],
        },
    },
]

TUNE: list[Case] = [
    {
        "name": "tramtimes",
        "format": "pi",
        "cwd": "/home/dev/tramtimes",
        "events": [
            (
                "user",
                "The tram stop displays show departures that already left. Would you fix the clock drift on the "
                "displays, or send them times relative to now instead of absolute ones?",
            ),
            ("say", "Let me read the display client before choosing."),
            (
                "tool",
                "read",
                "display/board.py",
                "def draw(deps):\n    for d in deps:\n        if d.time >= datetime.now():\n"
                "            screen.line(d.route, d.time.strftime('%H:%M'))\n",
                False,
            ),
            (
                "say",
                "display/board.py draws the departure lines on the stop's screen and hides any departure whose time "
                "is past by the display's own clock.",
            ),
            ("tool", "bash", "ls -la fonts/", listing("font"), False),
            ("user", "Could the route colours stay exactly as they are? The transport authority sets them."),
            ("user", "How far off are the display clocks?"),
            (
                "tool",
                "bash",
                "ansible displays -m shell -a 'chronyc tracking | grep System'",
                "stop-117 | System time : 143.208 seconds slow of NTP time",
                False,
            ),
            ("say", "That's the worst one in the fleet."),
            ("user", "Clock fix or relative times, what's your take?"),
            (
                "say",
                "Relative times. The displays sit behind a firewall that blocks NTP at half the stops, so their "
                "clocks will drift again, while 'in 3 min' computed on the server is right whatever the display's "
                "clock says.",
            ),
            ("user", "Push a test build to one display."),
            (
                "tool",
                "bash",
                "scp build/board.tar stop-117:/opt/board/",
                "scp: /opt/board/board.tar: Read-only file system",
                True,
            ),
            (
                "say",
                "The displays mount /opt read-only; builds have to go to /var/board and be switched with "
                "`board-activate`, which remounts for the copy.",
            ),
            ("user", "Now send minutes-until-departure from the server and make board.py print them."),
        ],
        "facts": {
            "concluded": (
                [r"relative|minutes.until|in \d+ min", r"rather than|instead of|not (the )?clock|ntp|drift again"],
                [
                    r"\b(chose|choose|go with|going with|decided on)\b[^.\n]{0,20}(fix\w* )?(the )?clock|clock fix"
                    r"[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": ([r"read.only", r"/var/board|board-activate"], []),
            "measured": ([r"143(\.2)?|2 ?min(utes)? 23|2\.4 ?min"], []),
            "asked": ([r"route colou?rs?", KEEP], []),
            "role": ([r"board\.py", r"draws|departure lines|hides|past"], []),
            "request": ([r"minutes", r"board\.py|print|show"], []),
        },
        "good": {
            "goal": "Tram stop displays must stop listing departures that have already gone.",
            "rules": [
                "Route colours are set by the transport authority: leave them unchanged.",
                "/opt is read-only on the displays: copy builds to /var/board and switch with `board-activate`.",
            ],
            "done": ["Worst display clock (stop-117) runs 143 s behind NTP.", "scp of a test build was refused."],
            "now": "Server sends minutes until departure; board.py prints those.",
            "decisions": [
                "Send relative times from the server instead of fixing the clocks: NTP is blocked at half the "
                "stops, so the clocks would drift again."
            ],
            "next": ["Install the test build on stop-117 via /var/board."],
            "files": ["display/board.py: draws the stop's departure lines, hiding those its own clock says are past."],
        },
        "bad": {
            "goal": "Tram displays.",
            "done": ["Read the client."],
            "decisions": ["Go with fixing the clock drift on the displays."],
            "now": "Send minutes until departure and have board.py print them.",
            "next": ["Continue."],
        },
    },
    {
        "name": "vetclinic",
        "format": "claude_code",
        "cwd": "/home/dev/vetclinic",
        "events": [
            (
                "user",
                "Appointment reminders for the vet clinic go out in English to everyone. Should we store a language "
                "per owner, or guess it from the phone number's country code?",
            ),
            ("say", "I'll read the reminder sender first."),
            (
                "tool",
                "read",
                "reminders/send.ts",
                "export async function send(appt: Appointment) {\n  const text = t('reminder', 'en', appt);\n"
                "  await sms.send(appt.owner.phone, text);\n}\n",
                False,
            ),
            (
                "say",
                "reminders/send.ts builds the reminder text for the next day's appointments and hands it to the SMS "
                "gateway, always with the English template.",
            ),
            ("tool", "bash", "ls -la locales/", listing("locale"), False),
            ("user", "Can we avoid touching the appointment booking form? The front desk prints it."),
            ("user", "How many owners have a phone number from abroad?"),
            (
                "tool",
                "bash",
                "psql vet -c \"select count(*) from owners where phone not like '+31%'\"",
                " count \n-------\n   528\n(1 row)",
                False,
            ),
            ("say", "That's out of the whole owner list."),
            ("user", "Stored language or country code?"),
            (
                "say",
                "A stored language per owner. Plenty of Dutch-speaking owners keep a Belgian or German number, and "
                "expats here use +31 numbers, so the country code would guess wrong for exactly the people this is for.",
            ),
            ("user", "Send me a test reminder."),
            (
                "tool",
                "bash",
                "npm run reminders:send -- --test",
                "Error: SMS_API_KEY is not set\n    at config (reminders/config.ts:12:11)",
                True,
            ),
            (
                "say",
                "The SMS key is not in this shell: it lives in 1Password under 'vet sms', and the test send needs "
                "it exported as SMS_API_KEY first.",
            ),
            ("user", "Now add a language column to owners and have send.ts pick the template by it."),
        ],
        "facts": {
            "concluded": (
                [
                    r"language",
                    r"rather than|instead of|not (by|from)? ?(the )?(country|phone)|country code[^.\n]{0,60}"
                    r"(wrong|rejected|misguess|guess wrong)",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on)\b[^.\n]{0,25}country code|country code[^.\n]{0,10}"
                    r"(chosen|decided)"
                ],
            ),
            "learnt": ([r"sms_api_key|api key|sms key", r"1password|export"], []),
            "measured": ([r"\b528\b"], []),
            "asked": ([r"booking form", KEEP], []),
            "role": ([r"send\.ts", r"next day|sms gateway|english template|builds"], []),
            "request": ([r"language column|language", r"template"], []),
        },
        "good": {
            "goal": "Appointment reminders should reach each owner in their own language, not always English.",
            "rules": [
                "No changes to the appointment booking form (the front desk prints it).",
                "Test sends need the SMS key from 1Password ('vet sms') exported as SMS_API_KEY.",
            ],
            "asks": ["Stored language or country code?"],
            "done": ["528 owners have a non-Dutch (+31) number."],
            "decisions": [
                "Keep a language on each owner record instead of inferring it from the dialling code, which "
                "misjudges Dutch speakers with foreign numbers and expats with local ones."
            ],
            "errors": ["Test reminder failed: SMS_API_KEY not set."],
            "files": [
                "reminders/send.ts: renders tomorrow's appointment reminders (English template only) and passes them "
                "to the SMS gateway."
            ],
            "now": "Add a language column to owners; send.ts chooses the template from it.",
            "next": ["Export the key and send a test reminder."],
        },
        "bad": {
            "goal": "Reminder languages.",
            "done": ["Read some code."],
            "decisions": ["Use the phone number's country code, decided."],
            "now": "Add a language column and pick the template by it.",
            "next": ["Continue."],
        },
    },
    {
        "name": "solarlog",
        "format": "codex",
        "cwd": "/home/dev/solarlog",
        "events": [
            (
                "user",
                "The solar dashboard's daily yield is wrong on days with a cloud gap. Which would you go for: "
                "interpolate the missing inverter readings, or read the meter's daily counter instead?",
            ),
            ("say", "Let me look at how the yield is computed first."),
            (
                "tool",
                "read",
                "yield/daily.go",
                "func Daily(rs []Reading) float64 {\n\tvar kwh float64\n\tfor i := 1; i < len(rs); i++ {\n"
                "\t\tkwh += rs[i].W * rs[i].T.Sub(rs[i-1].T).Hours() / 1000\n\t}\n\treturn kwh\n}\n",
                False,
            ),
            (
                "say",
                "yield/daily.go adds up the inverter's power samples over the day to get the kWh the dashboard "
                "shows; when the inverter drops off, the gap is multiplied by the next sample's power.",
            ),
            ("tool", "bash", "ls -la exports/", listing("export"), False),
            ("user", "Is there a way to do this without touching the monthly PDF report? The owners compare them."),
            ("user", "How many readings are missing in a bad day?"),
            (
                "tool",
                "bash",
                "sqlite3 solar.db \"select 288 - count(*) from readings where day = '2026-11-19'\"",
                "71",
                False,
            ),
            ("say", "That's the 19th, the worst day this month."),
            ("user", "Interpolate or the meter counter?"),
            (
                "say",
                "The meter's daily counter. It is what the grid operator pays on, so it is right by definition, "
                "whereas interpolating across a cloud gap guesses exactly the part of the day that went wrong.",
            ),
            ("user", "Fetch today's counter from the meter."),
            (
                "tool",
                "bash",
                "curl -s http://meter.local/api/v1/counter",
                "curl: (7) Failed to connect to meter.local port 80: Connection refused",
                True,
            ),
            (
                "say",
                "The meter's HTTP API is switched off by default; it answers only after enabling 'local API' in the "
                "meter's menu, and then on port 8088.",
            ),
            ("user", "Now read the daily yield from the meter counter and keep the inverter sum only as a fallback."),
        ],
        "facts": {
            "concluded": (
                [
                    r"counter|meter",
                    r"rather than|instead of|not interpolat|interpolat\w*[^.\n]{0,60}(guess|rejected|"
                    r"turned down)|grid operator|pays",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on)\b[^.\n]{0,20}interpolat|interpolat\w*[^.\n]{0,30}"
                    r"(chosen|decided)"
                ],
            ),
            "learnt": ([r"local api|api[^.\n]{0,30}(off|disabled|enable)", r"8088|menu"], []),
            "measured": ([r"\b71\b"], []),
            "asked": ([r"monthly (pdf )?report|pdf report", KEEP], []),
            "role": ([r"daily\.go", r"adds up|samples"], []),
            "request": ([r"counter", r"fallback|fall back"], []),
        },
        "good": {
            "goal": "Get the dashboard's daily solar yield right on days when readings drop out.",
            "rules": [
                "The monthly PDF report must stay unchanged (owners compare them).",
                "The meter's API must be enabled in its menu ('local API') and then answers on port 8088.",
            ],
            "done": ["Worst day this month (19 Nov) lacks 71 of its 288 readings."],
            "decisions": [
                "Take the meter's daily counter, which the grid operator bills on, instead of interpolating the "
                "gaps, which guesses precisely the missing part."
            ],
            "errors": ["curl to meter.local:80 refused."],
            "files": [
                "yield/daily.go: sums the inverter's power samples into the day's kWh; a gap takes the next "
                "sample's power."
            ],
            "now": "Use the meter counter for the daily yield, with the inverter sum as fallback.",
            "next": ["Turn on the meter's local API and fetch today's counter."],
        },
        "bad": {
            "goal": "Solar numbers.",
            "done": ["Looked at the code."],
            "decisions": ["Interpolate the missing readings, decided."],
            "now": "Read the yield from the meter counter, inverter sum as a fallback.",
            "next": ["Continue."],
        },
    },
    {
        "name": "wikiexport",
        "format": "pi",
        "cwd": "/home/dev/wikiexport",
        "events": [
            (
                "user",
                "The wiki's PDF export drops images hosted on the old file server. Should we rewrite the image links "
                "during export, or migrate the old images into the wiki first?",
            ),
            ("say", "I'll check how the exporter resolves images."),
            (
                "tool",
                "read",
                "export/images.php",
                "function resolve($src) {\n  if (str_starts_with($src, '/files/')) return WIKI_ROOT . $src;\n"
                "  return null; // external: skipped\n}\n",
                False,
            ),
            (
                "say",
                "export/images.php turns each image reference of a page into a local file for the PDF renderer and "
                "skips anything outside /files/, which is why the old server's images vanish.",
            ),
            ("tool", "bash", "ls -la cache/", listing("cache"), False),
            ("user", "Any chance we can leave the page URLs as they are? Half the intranet links to them."),
            ("user", "How much space would the old images take?"),
            ("tool", "bash", "du -sh /mnt/oldfiles/images", "6.4G\t/mnt/oldfiles/images", False),
            ("say", "That's the whole images share."),
            ("user", "So rewrite links or migrate?"),
            (
                "say",
                "Migrate the images into the wiki. The old file server is switched off in March, so rewritten links "
                "would break again then, and migrated images get the wiki's permissions for free.",
            ),
            ("user", "Copy a sample folder over."),
            (
                "tool",
                "bash",
                "rsync -a /mnt/oldfiles/images/2019/ files/legacy/2019/",
                'rsync: [receiver] mkstemp "files/legacy/2019/.plan.png.Xa12" failed: Disk quota exceeded (122)',
                True,
            ),
            (
                "say",
                "The wiki volume has a 5 GB quota, below the 6.4 GB the images need, so IT must raise the quota "
                "before the migration; the ticket form is under 'storage request'.",
            ),
            ("user", "Now write the migration script and map old image links to their new /files/legacy paths."),
        ],
        "facts": {
            "concluded": (
                [
                    r"migrat",
                    r"rather than|instead of|not (by )?rewrit|rewrit\w*[^.\n]{0,60}(break|rejected|turned "
                    r"down)|switched off|march",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on)\b[^.\n]{0,20}rewrit|rewrit\w*[^.\n]{0,30}(chosen|"
                    r"decided)"
                ],
            ),
            "learnt": ([r"quota", r"rais|storage request|5 ?gb"], []),
            "measured": ([r"6[.,]4 ?g"], []),
            "asked": ([r"page url|urls", KEEP], []),
            "role": ([r"images\.php", r"skips|outside /files|local file|renderer"], []),
            "request": ([r"migration script", r"legacy"], []),
        },
        "good": {
            "goal": "Wiki PDF exports must include the images that live on the old file server.",
            "rules": [
                "Page URLs are linked from all over the intranet: keep them unchanged.",
                "The wiki volume's 5 GB quota is too small: IT must raise it first (form 'storage request').",
            ],
            "done": ["Old image share measured: 6.4 GB.", "Sample rsync aborted: disk quota exceeded."],
            "now": "Write the migration script; map old image links onto /files/legacy.",
            "decisions": [
                "Move the old images into the wiki instead of rewriting links at export time: the old server goes "
                "away in March and the links would break again."
            ],
            "next": ["Request the quota increase, then copy the sample folder."],
            "files": [
                "export/images.php: maps each image on a page to a local file for the PDF renderer and skips "
                "everything outside /files/."
            ],
        },
        "bad": {
            "goal": "PDF images.",
            "done": ["Checked the exporter."],
            "decisions": ["Go with rewriting the image links during export."],
            "now": "Write the migration script and map old links to /files/legacy.",
            "next": ["Continue."],
        },
    },
    {
        "name": "chessclub",
        "format": "claude_code",
        "cwd": "/home/dev/chessclub",
        "events": [
            (
                "user",
                "The chess club's ratings jump around after every tournament. Would you switch from Elo to Glicko-2, "
                "or just lower the K-factor?",
            ),
            ("say", "First I'll read how the ratings are updated."),
            (
                "tool",
                "read",
                "ratings/update.py",
                "K = 40\n\ndef update(a, b, score):\n    exp = 1 / (1 + 10 ** ((b.r - a.r) / 400))\n"
                "    a.r += K * (score - exp)\n",
                False,
            ),
            (
                "say",
                "ratings/update.py applies each game's result to both players right after the round is entered, with "
                "the same K for newcomers and regulars.",
            ),
            ("tool", "bash", "ls -la pgn/", listing("game"), False),
            ("user", "Would you mind keeping the printed crosstable as it is? Members pin it on the board."),
            ("user", "How many games does a member play in a season?"),
            (
                "tool",
                "bash",
                "python -m ratings.stats --season 2025",
                "median games per member: 23",
                False,
            ),
            ("say", "That's over the last full season."),
            ("user", "Glicko or lower K?"),
            (
                "say",
                "Glicko-2. With around 23 games a season most members have few results, and Glicko-2 tracks how "
                "uncertain each rating is, so newcomers move fast and regulars settle; a lower K would only slow "
                "everyone down alike.",
            ),
            ("user", "Recompute last season to compare."),
            (
                "tool",
                "bash",
                "python -m ratings.recompute --season 2025",
                "sqlite3.OperationalError: database is locked",
                True,
            ),
            (
                "say",
                "The club's web app holds a write lock on ratings.db while it runs, so recomputes must work on a "
                "copy (`cp ratings.db /tmp/r.db` and `--db /tmp/r.db`).",
            ),
            ("user", "Now implement Glicko-2 in update.py behind a setting, off by default."),
        ],
        "facts": {
            "concluded": (
                [
                    r"glicko",
                    r"rather than|instead of|not (a )?lower|lower(ing)? (the )?k[^.\n]{0,60}(slow|rejected|"
                    r"turned down|alike)|uncertain",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on)\b[^.\n]{0,20}(a )?lower\w* (the )?k|lower\w* (the )?"
                    r"k-?factor[^.\n]{0,20}(chosen|decided)"
                ],
            ),
            "learnt": ([r"lock", r"copy|/tmp"], []),
            "measured": ([r"\b23\b"], []),
            "asked": ([r"crosstable", KEEP], []),
            "role": ([r"update\.py", r"both players|each game|same k|after the round"], []),
            "request": ([r"glicko", r"setting|off by default|flag"], []),
        },
        "good": {
            "goal": "Make the club's ratings swing less after each tournament.",
            "rules": [
                "Leave the printed crosstable untouched (it goes on the notice board).",
                "The web app locks ratings.db while running: recompute on a copy in /tmp (`--db /tmp/r.db`).",
            ],
            "asks": ["Glicko or lower K?"],
            "done": ["A member plays a median of 23 games per season (2025)."],
            "decisions": [
                "Move to Glicko-2, which models each rating's uncertainty, instead of a smaller K that would slow "
                "newcomers and regulars alike."
            ],
            "errors": ["Recompute of 2025 failed: database is locked."],
            "files": [
                "ratings/update.py: applies every game's result to both players once the round is entered, one "
                "K for all."
            ],
            "now": "Implement Glicko-2 in update.py behind a setting that is off by default.",
            "next": ["Recompute 2025 on a copy and compare."],
        },
        "bad": {
            "goal": "Ratings.",
            "done": ["Looked at the ratings."],
            "decisions": ["Go with lowering the K-factor."],
            "now": "Implement Glicko-2 in update.py behind a setting, off by default.",
            "next": ["Continue."],
        },
    },
    {
        "name": "bakeryorders",
        "format": "codex",
        "cwd": "/home/dev/bakeryorders",
        "events": [
            (
                "user",
                "The bakery's online orders sometimes double-book the last loaves. Is it better to lock the stock row "
                "while an order is placed, or reserve loaves in the basket for ten minutes?",
            ),
            ("say", "Let me see how an order takes stock today."),
            (
                "tool",
                "read",
                "shop/checkout.rb",
                "def place(order)\n  order.items.each { |i| i.product.update!(stock: i.product.stock - i.qty) }\n"
                "  order.save!\nend\n",
                False,
            ),
            (
                "say",
                "shop/checkout.rb is where an order becomes final: it subtracts each item from the product's stock "
                "and saves the order, reading the stock first without any lock.",
            ),
            ("tool", "bash", "ls -la public/photos/", listing("photo"), False),
            ("user", "Can the pickup times stay as they are? The shop staff plan the morning around them."),
            ("user", "How often did it double-book this month?"),
            ("tool", "bash", "bin/rails runner 'puts Order.oversold.where(month: 11).count'", "19", False),
            ("say", "Those are the orders support had to cancel."),
            ("user", "Lock or basket reservation, thoughts?"),
            (
                "say",
                "Lock the stock row while the order is placed. It closes the race with one line in the transaction, "
                "while ten-minute basket holds would hide the last loaves from other customers who would actually "
                "buy them.",
            ),
            ("user", "Run the checkout specs."),
            (
                "tool",
                "bash",
                "bundle exec rspec spec/checkout_spec.rb",
                "Could not find gem 'pg (~> 1.5)' in locally installed gems.\nRun `bundle install` to install missing "
                "gems.",
                True,
            ),
            (
                "say",
                "The pg gem needs the PostgreSQL client headers to build, so `apt install libpq-dev` has to come "
                "before `bundle install` on this box.",
            ),
            (
                "user",
                "Now wrap the stock update in a transaction with a row lock and add a spec for two parallel orders.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"lock",
                    r"rather than|instead of|not (a )?(basket|reserv)|(basket|reserv|hold)\w*[^.\n]{0,60}(hide|"
                    r"rejected|turned down)|closes the race|one line",
                ],
                [
                    r"\b(chose|choose|go with|going with|decided on)\b[^.\n]{0,20}(basket|reserv)|(basket|reserv)\w*"
                    r"[^.\n]{0,30}(chosen|decided)"
                ],
            ),
            "learnt": ([r"libpq-dev|client headers|postgresql headers", r"bundle install|before"], []),
            "measured": ([r"\b19\b"], []),
            "asked": ([r"pickup times?", KEEP], []),
            "role": ([r"checkout\.rb", r"finalis|final\b|subtracts|unlocked|without (any )?lock"], []),
            "request": ([r"transaction|row lock", r"parallel|two orders|concurrent"], []),
        },
        "good": {
            "goal": "Stop online orders from selling the same last loaves twice.",
            "rules": [
                "Pickup times must not change (staff plan mornings around them).",
                "Installing gems here needs libpq-dev (PostgreSQL client headers) before `bundle install`.",
            ],
            "done": ["19 oversold orders had to be cancelled in November."],
            "decisions": [
                "Row-lock the stock while placing the order (one line in the transaction) instead of ten-minute "
                "basket reservations, which would hide the last loaves from buyers."
            ],
            "errors": ["Checkout specs did not start: pg gem missing."],
            "files": ["shop/checkout.rb: finalises an order, subtracting items from stock after an unlocked read."],
            "now": "Put the stock update in a transaction with a row lock; spec two parallel orders.",
            "next": ["Install libpq-dev, bundle, run the checkout specs."],
        },
        "bad": {
            "goal": "Order bug.",
            "done": ["Looked at checkout."],
            "decisions": ["Go with reserving loaves in the basket."],
            "now": "Wrap the stock update in a transaction with a row lock and spec two parallel orders.",
            "next": ["Continue."],
        },
    },
]
