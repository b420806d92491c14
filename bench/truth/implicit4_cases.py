"""The implicit facts' fourth round: eight held-out projects, in pi, Claude Code and Codex format.

Written by hand, as rounds 1-3 (implicit_cases.py describes the six implicit kinds: `concluded`,
`learnt`, `measured`, `asked`, `role`, `request`; implicit2_cases.py the per-case fields), in
themes and wordings of their own, plus three ordinary kinds the user states in so many words:
`stated` (a plain rule), `todo` (a task put off for later) and `detail` (a value: an address, a
date, a duration). The which-way question is put as "I'm torn between …", "help me decide: …",
"is X overkill compared to Y?", "lean towards X or Y?", "between X and Y, which would you trust",
"pick one for me", "if it were your project, would you …", "X or Y — which is the saner key?";
the failing command is a process killed for memory, a rate limit, a changed SSH host key, a file
over a push size limit, a name that does not resolve, a read-only file system, a wheel that does
not build, a file in another encoding; the rule asked as a question is a tag question ("we're not
changing X, are we?"), "would it be possible to not …", "how about we don't …", "can X keep
working?", "shall we keep X out of this?", "do we really have to …?", "you won't need to …,
right?", "could we do this without …?".

The judges ask for each fact's function, not the words around it: `concluded` wants the choice
and, on the same line, what it was chosen over or why (a which-way question copied is not the
decision), `learnt` the remedy the failure taught (the failing command or its error copied is
not it), `role` what the file does, `asked` the rule's object with a keep / avoid marker near it.
The good summaries restate every fact as a careful model does, in forms real models use: dates
and relative times resolved ("Saturday" → "Sat 5 Dec", "in two weeks" → "17 Dec"), units
converted (ms → minutes, s → ms), abbreviations ("DB", "dp", "DPO"), a command described by what
it does, a URL given as host:port, lists merged, passive voice, synonyms. The bad ones are hasty:
vague, several facts dropped, the decision (and some a rule) stated otherwise.

Every case is held out: written and committed blind (no audit code read, the audit not run on
them), and never tuned on.
"""

from __future__ import annotations

from bench.truth.implicit_cases import WEIGHTS, Case, listing

# the implicit kinds' weights, and the ordinary kinds' on catalogue.WEIGHTS' scale (constraint 3, todo 2.5, number 1.5)
WEIGHTS4 = WEIGHTS | {"stated": 3.0, "todo": 2.5, "detail": 1.5}
KINDS4 = tuple(WEIGHTS4)

# a rule asked as a question, kept: a keep / avoid marker near the rule's object
_KEEP = (
    r"(leav\w*|left|keep\w*|stay\w*|remain\w*)[^.\n]{0,30}(alone|as.(it |they )?(is|are)|untouched|unchanged|the same)"
    r"|frozen|off.limits|out of scope|hands off|unchanged|untouched|must not (be )?(chang|touch|edit)\w*"
    r"|(don'?t|do not|not|never|avoid|no|without|n'?t) (touch|chang|edit|modif|alter)\w*"
)


def kept(obj: str, marker: str = _KEEP) -> str:
    """The rule's object with a keep marker before or after it on the same sentence."""
    return rf"({obj})[^.\n]{{0,60}}({marker})|({marker})[^.\n]{{0,60}}({obj})"


HELD_OUT: list[Case] = [
    {
        "name": "hivemonitor",
        "format": "pi",
        "cwd": "/home/dev/hivemonitor",
        "events": [
            (
                "user",
                "Our beehive scales send a weight reading every second and the Grafana board has started to crawl. "
                "I'm torn between keeping the readings in InfluxDB and just appending them to Parquet files, one per "
                "day.",
            ),
            ("say", "Let me read how the readings come in before I weigh the two."),
            (
                "tool",
                "read",
                "ingest/receiver.py",
                "def on_uplink(msg):\n    w = decode(msg.payload)\n"
                "    db.write_point('hive_weight', w, tags={'hive': msg.dev_eui})\n",
                False,
            ),
            (
                "say",
                "ingest/receiver.py is where every scale's LoRa uplink lands: it decodes the payload into grams and "
                "writes one point per hive into the database the board reads.",
            ),
            ("tool", "bash", "ls -la exports/", listing("hive"), False),
            (
                "user",
                "We're not changing the LoRa payload format, are we? Two hundred scales in the field have it flashed.",
            ),
            ("user", "Keep everything on Python 3.9, the Raspberry Pis at the apiary can't go higher."),
            ("user", "How many readings did we get last year?"),
            (
                "tool",
                "bash",
                "influx -execute \"SELECT count(weight) FROM hive_weight WHERE time >= '2025-01-01' AND time < "
                "'2026-01-01'\"",
                "name: hive_weight\ntime count\n---- -----\n0    31536000",
                False,
            ),
            ("say", "That is the whole of 2025, all hives together."),
            ("user", "So, Influx or Parquet, where do you land?"),
            (
                "say",
                "Parquet files per day. The board only ever shows hourly and daily curves, which DuckDB reads "
                "straight from Parquet, while Influx's memory on the Pi grows with every hive tag, and that is what "
                "slows the board down.",
            ),
            (
                "user",
                "The gateway is at http://192.168.7.20:1880/hives if you need it. At some point we want a swarm alert "
                "when a hive loses weight fast, but not now.",
            ),
            ("user", "Convert last year's data."),
            (
                "tool",
                "bash",
                "python tools/influx_to_parquet.py --year 2025",
                "Killed\nexit status 137",
                True,
            ),
            (
                "say",
                "The kernel killed the converter: it loads the whole year into memory and the Pi has 2 GB, so it has "
                "to run one month at a time with `--month`.",
            ),
            (
                "user",
                "Now write the Parquet sink in receiver.py so new readings go to one file per day, and leave the "
                "Influx writes in until the conversion is done.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"parquet[^\n]{0,120}(rather than|instead of|not influx|over influx|influx\w*[^\n]{0,60}"
                    r"(memory|ram|tag|slow))|(memory|ram)[^\n]{0,60}influx[^\n]{0,80}parquet"
                ],
                [
                    r"(stay|keep|stick)\w* (with|on) influx|influx(db)?[^.\n]{0,20}(chosen|decided|wins)"
                    r"|(go|going|went) with influx|chose influx"
                ],
            ),
            "learnt": (
                [r"--month|(one|a|each|single) month at a time|month by month|per month|monthly (chunk|batch|run)"],
                [],
            ),
            "measured": ([r"31[,. ]?536[,. ]?000|31\.5 ?(m\b|million)"], []),
            "asked": ([kept(r"payload")], [r"(extend|bump|widen|add \w+ to) the (lora )?payload"]),
            "role": (
                [r"receiver\.py", r"uplink|decod|(every|each) (scale|reading)|one point per hive|point per hive"],
                [],
            ),
            "request": (
                [
                    r"parquet",
                    r"receiver\.py",
                    r"per day|a day|daily|each day",
                    r"influx[^.\n]{0,80}(until|till|still|keep|leave)|(until|till|still|keep|leave)[^.\n]{0,80}influx",
                ],
                [],
            ),
            "stated": ([r"3\.9"], []),
            "todo": ([r"swarm", r"alert|warn|notif|alarm"], []),
            "detail": ([r"192\.168\.7\.20:1880"], []),
        },
        "good": {
            "goal": "Make the hive-weight dashboard fast again (every scale reports once a second).",
            "rules": [
                "LoRa payload format is frozen: ~200 scales in the field run it.",
                "Target Python 3.9; the apiary Raspberry Pis can't go newer.",
                "Backfill month by month (`--month`): the full-year run was OOM-killed on the Pi's 2 GB.",
            ],
            "done": ["2025 held 31.5 million readings across all hives."],
            "errors": ["`influx_to_parquet.py --year 2025` was killed (exit 137, out of memory)."],
            "decisions": [
                "Storage: daily Parquet files read with DuckDB, not InfluxDB, whose memory on the Pi grows with "
                "each hive tag (the cause of the slow board)."
            ],
            "now": "Add a Parquet sink to receiver.py, one file per day, still writing to Influx until the backfill "
            "is finished.",
            "next": [
                "Backfill 2025 a month at a time.",
                "Later, not now: a swarm alert when a hive's weight drops fast.",
            ],
            "files": [
                "ingest/receiver.py: entry point for each scale's LoRa uplink; decodes the weight and writes a point "
                "per hive."
            ],
            "context": ["Node-RED gateway: 192.168.7.20:1880 (/hives)."],
        },
        "bad": {
            "goal": "Dashboard performance.",
            "rules": ["Stay on an older Python."],
            "done": ["Looked at the ingest code."],
            "decisions": ["Stay with InfluxDB and tune it."],
            "now": "Write the Parquet sink in receiver.py (a file per day), keeping the Influx writes until the "
            "conversion is done.",
            "next": ["Extend the payload with a battery field."],
        },
    },
    {
        "name": "karaokequeue",
        "format": "pi",
        "cwd": "/home/dev/karaokequeue",
        "events": [
            (
                "user",
                "The karaoke queue on the bar's TV lags several songs behind the phones. Help me decide: WebSockets or "
                "server-sent events for pushing the queue to the TV.",
            ),
            ("say", "I'll look at how the TV gets the queue now."),
            (
                "tool",
                "read",
                "web/tv/queue_view.js",
                "setInterval(async () => {\n  const q = await fetch('/api/queue').then(r => r.json());\n  render(q);\n"
                "}, 15000);\n",
                False,
            ),
            (
                "say",
                "web/tv/queue_view.js is the page the TV shows: it asks the server for the queue every 15 seconds and "
                "redraws the whole list, so a song added just after a poll waits up to 15 seconds.",
            ),
            (
                "user",
                "Would it be possible to not renumber the songs? The hosts have the numbers printed on cards on every "
                "table.",
            ),
            ("user", "No accounts for singers. They type a name and that's it."),
            ("tool", "bash", "ls -la media/", listing("track"), False),
            ("user", "How many songs are in the catalogue?"),
            ("tool", "bash", "sqlite3 karaoke.db 'select count(*) from songs'", "12480", False),
            ("say", "There you go, that's every song the bar licenses."),
            ("user", "WebSockets vs SSE, final answer?"),
            (
                "say",
                "Server-sent events. The TV only listens and never sends, SSE reconnects on its own after the bar's "
                "Wi-Fi drops, and it passes the venue's proxy, which strips WebSocket upgrades.",
            ),
            (
                "user",
                "The launch party for this is on Saturday. Later we'll also want a skip button for the host, park "
                "that for now.",
            ),
            ("user", "Run the server."),
            (
                "tool",
                "bash",
                "npm run dev",
                "Error: 429 Too Many Requests from api.lyricsvault.io: limit 60 requests/hour\n"
                "    at fetchLyrics (server/lyrics.js:22:11)",
                True,
            ),
            (
                "say",
                "The lyrics service allows 60 requests an hour and the dev server fetches lyrics for the whole "
                "catalogue on start; start it with `LYRICS_PREFETCH=0` so lyrics are fetched only when a song is "
                "queued.",
            ),
            (
                "user",
                "Now replace the polling in queue_view.js with an SSE stream from /api/queue/events, and keep the "
                "'up next' banner.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"(server.sent events|\bsse\b)[^\n]{0,120}(rather than|instead of|not websockets?|over websockets?"
                    r"|websockets?[^\n]{0,60}(proxy|upgrade|strip|block)|only (listens|receives)|one.way|reconnect)"
                ],
                [
                    r"(go|going|went) with websockets?|websockets?[^.\n]{0,20}(chosen|decided|wins)|chose websockets?"
                    r"|use websockets?"
                ],
            ),
            "learnt": (
                [
                    r"lyrics_prefetch=0|prefetch\w*[^.\n]{0,40}(off|disabl|=0)|(disabl|turn\w* off|skip|no)\w*[^.\n]"
                    r"{0,30}prefetch|only when (a song is |it'?s )?queued|on demand"
                ],
                [],
            ),
            "measured": ([r"12[,. ]?480"], []),
            "asked": (
                [
                    r"(not|no|never|don'?t|avoid|without)[^.\n]{0,20}renumber|song (numbers|ids?)[^.\n]{0,40}"
                    r"(stay|unchanged|fixed|frozen|as.is|keep|same|must not)|keep[^.\n]{0,30}song (numbers|ids?)"
                ],
                [r"(^|\n)[-*\d. ]*renumber"],
            ),
            "role": (
                [r"queue_view\.js", r"(tv|screen)[^.\n]{0,40}(page|shows|displays?|view)|15 ?s(ec(onds)?)?\b|redraw"],
                [],
            ),
            "request": ([r"queue_view", r"\bsse\b|server.sent|event ?stream|eventsource", r"up next"], []),
            "stated": (
                [
                    r"no (user |singer )?(accounts?|logins?|sign.?ups?)|without (an )?accounts?|(singers?|users?) "
                    r"(just )?(type|enter|give) (a|their) name"
                ],
                [],
            ),
            "todo": ([r"skip", r"host"], []),
            "detail": ([r"saturday|\bsat\b|5 dec|dec(ember)? 5|12-05"], []),
        },
        "good": {
            "goal": "Get the karaoke queue on the bar TV in step with the phones.",
            "rules": [
                "Song numbers must not change: hosts have them printed on table cards.",
                "No singer accounts; a typed name is all.",
                "Start the dev server with `LYRICS_PREFETCH=0`: the lyrics API allows 60 req/h and a full prefetch "
                "gets HTTP 429.",
            ],
            "done": ["Catalogue: 12,480 licensed songs."],
            "errors": ["`npm run dev` failed with HTTP 429 from the lyrics API."],
            "decisions": [
                "Push via SSE, not WebSockets: the TV only receives, SSE reconnects after Wi-Fi drops, and the venue "
                "proxy strips WebSocket upgrades."
            ],
            "now": "Swap the polling in queue_view.js for an EventSource on /api/queue/events; the 'up next' banner "
            "stays.",
            "next": ["Ready for the launch party on Sat 5 Dec.", "Parked: a skip button for the host."],
            "files": ["web/tv/queue_view.js: the TV's page; polls /api/queue every 15 s and redraws the whole list."],
        },
        "bad": {
            "goal": "Fix the TV lag.",
            "done": ["Checked the TV code."],
            "decisions": ["Use WebSockets for the queue push."],
            "now": "Replace the polling in queue_view.js with SSE from /api/queue/events, keep the 'up next' banner.",
            "next": ["Renumber the songs by artist so the list reads better."],
        },
    },
    {
        "name": "marinaberths",
        "format": "pi",
        "cwd": "/home/dev/marinaberths",
        "events": [
            (
                "user",
                "The marina's invoices show last season's berth fees for some boats. Is a nightly batch job overkill "
                "compared to just working out the fee when the invoice is opened?",
            ),
            ("say", "First let me see where the fee comes from."),
            (
                "tool",
                "read",
                "berths/fees.py",
                "def fee_for(boat, season):\n    row = FEE_CACHE.get((boat.length_band, season.year))\n"
                "    return row.amount if row else None\n",
                False,
            ),
            (
                "say",
                "berths/fees.py prices a berth from the boat's length band and the season; it reads a cache that is "
                "filled once at startup, so a tariff changed mid-season is only seen after a restart.",
            ),
            ("tool", "bash", "ls -la invoices/", listing("inv"), False),
            (
                "user",
                "How about we don't touch the harbour master's tariff sheet? He maintains it by hand every winter.",
            ),
            ("user", "Fees must be shown in euros with two decimals, VAT included."),
            ("user", "How many berths are we talking about?"),
            (
                "tool",
                "bash",
                "psql marina -c 'select count(*) from berths'",
                " count \n-------\n   318\n(1 row)",
                False,
            ),
            ("say", "That's every berth across the three pontoons."),
            ("user", "Batch or on the fly?"),
            (
                "say",
                "On the fly. With a few hundred berths the fee is a lookup that costs nothing, and a nightly batch "
                "would leave the same stale-price window we have now, for up to a day.",
            ),
            (
                "user",
                "The new tariff applies in two weeks. Also, at some point the invoice should list the electricity meter "
                "reading, not now though.",
            ),
            ("user", "Deploy it to the harbour server."),
            (
                "tool",
                "bash",
                "ssh harbour@10.8.0.4 'cd marina && git pull'",
                "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
                "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
                "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
                "Host key for 10.8.0.4 has changed and you have requested strict checking.\n"
                "Host key verification failed.",
                True,
            ),
            (
                "say",
                "The harbour server was reinstalled last week, so its SSH key is new; the old one has to be removed "
                "from known_hosts with `ssh-keygen -R 10.8.0.4`, and the new fingerprint checked with the harbour "
                "office, before connecting.",
            ),
            ("user", "Now compute the fee when the invoice opens and drop the startup cache from fees.py."),
        ],
        "facts": {
            "concluded": (
                [
                    r"(on the fly|(when|as|once) (the |an )?invoice (is )?open\w*|at invoice.(open|time)|on demand)"
                    r"[^\n]{0,120}(rather than|instead of|not (a )?(nightly )?batch|no (nightly )?batch|batch\w*"
                    r"[^\n?]{0,80}(stale|a day|window|unnecessary|not needed)|costs nothing|cheap)"
                ],
                [
                    r"(go|going|went) with (a |the )?(nightly )?batch|(nightly )?batch( job)?[^.\n]{0,20}(chosen|decided"
                    r"|wins)|chose (a |the )?(nightly )?batch|(add|schedule|set up) (a |the )?nightly batch"
                ],
            ),
            "learnt": (
                [
                    r"ssh-keygen -r|known_hosts|(old|stale|previous) (ssh |host )?key|host key[^.\n]{0,40}(remov|drop|"
                    r"delet|replac|clear)|(remov|drop|delet|replac|clear)\w*[^.\n]{0,30}host key"
                ],
                [],
            ),
            "measured": ([r"\b318\b"], []),
            "asked": ([kept(r"tariff (sheet|table|spreadsheet|file)")], []),
            "role": ([r"fees\.py", r"length( band)?|boat'?s (size|length)"], []),
            "request": ([r"fees\.py", r"cache", r"drop|remov|delet|get rid|rip out|retir"], []),
            "stated": (
                [r"eur|€", r"two decimals|2 decimals|2 ?d\.?p|\bcents?\b|to the cent", r"vat|tax"],
                [],
            ),
            "todo": ([r"(electricity|shore.power|power)[^.\n]{0,30}(meter|reading)|meter reading"], []),
            "detail": ([r"two weeks|2 weeks|fortnight|17 dec|dec(ember)? 17|12-17"], []),
        },
        "good": {
            "goal": "Invoices must show the current season's berth fees, not last season's.",
            "rules": [
                "Hands off the harbour master's tariff sheet; he maintains it by hand each winter.",
                "Amounts in € to the cent, VAT inclusive.",
                "The harbour server was reinstalled: before SSH, drop its old host key (`ssh-keygen -R 10.8.0.4`) "
                "and confirm the new fingerprint with the harbour office.",
            ],
            "done": ["Berth count: 318 over the three pontoons."],
            "errors": ["Deploy over SSH refused: host key verification failed (remote host identification changed)."],
            "decisions": [
                "Price on the fly at invoice-open time; a nightly batch was judged unnecessary for a few hundred "
                "berths and would keep a stale-price window of up to a day."
            ],
            "now": "Compute the fee when an invoice is opened and remove the startup cache from fees.py.",
            "next": [
                "Redeploy to the harbour server once its host key is sorted.",
                "New tariff takes effect 17 Dec.",
                "Later: show the shore-power meter reading on invoices.",
            ],
            "files": [
                "berths/fees.py: prices a berth by the boat's length band and season from a cache loaded once at "
                "startup, so tariff edits need a restart."
            ],
        },
        "bad": {
            "goal": "Fee bug.",
            "rules": ["Prices in euros."],
            "done": ["Read the fee code."],
            "decisions": ["Add a nightly batch job to refresh the fees."],
            "now": "Compute the fee when the invoice opens and drop the startup cache from fees.py.",
            "next": ["Deploy."],
        },
    },
    {
        "name": "museumaudio",
        "format": "claude_code",
        "cwd": "/home/dev/museumaudio",
        "events": [
            (
                "user",
                "Visitors say the audio guide stutters in the east wing. Lean towards HLS streaming or plain MP3 "
                "downloads for the tracks?",
            ),
            ("say", "Before choosing, let me look at how the player loads a track."),
            (
                "tool",
                "read",
                "src/player/loadTrack.ts",
                "export async function loadTrack(id: string) {\n  const res = await fetch(`${MEDIA}/guide/${id}.mp3`);\n"
                "  audio.src = URL.createObjectURL(await res.blob());\n}\n",
                False,
            ),
            (
                "say",
                "src/player/loadTrack.ts is what runs when a visitor scans an exhibit's code: it downloads the whole "
                "track before playing a second of it, so on a weak signal the visitor waits or hears gaps.",
            ),
            ("user", "Can the QR codes already on the exhibits keep working? Reprinting them costs a fortune."),
            (
                "user",
                "The guide has to work fully offline once the visitor is inside; the basement galleries have no "
                "signal at all.",
            ),
            ("tool", "bash", "ls -la public/img/", listing("exhibit"), False),
            ("user", "How much audio do we have in total?"),
            ("tool", "bash", "tools/ffprobe-sum media/guide/*.mp3", "tracks: 148\ntotal_seconds: 13320", False),
            ("say", "That's all of it, every language included."),
            ("user", "So which way do you lean?"),
            (
                "say",
                "Plain MP3 downloads, fetched ahead of time. The basement has no signal, so HLS would stall exactly "
                "there; a service worker can pull the visitor's language pack over the entrance Wi-Fi and play from "
                "the cache afterwards.",
            ),
            (
                "user",
                "The media server is https://media.museum.local:9443/guide/. At some point we also want a kids' track "
                "for each exhibit, not in this round.",
            ),
            ("user", "Commit and push what we have."),
            (
                "tool",
                "bash",
                "git push origin main",
                "remote: error: File media/guide/pack_fr.zip is 236.40 MB; this exceeds the file size limit of "
                "100.00 MB\nerror: failed to push some refs",
                True,
            ),
            (
                "say",
                "The language packs are too big for the Git host, so they have to go through Git LFS: "
                "`git lfs track 'media/guide/*.zip'`, then commit them again.",
            ),
            (
                "user",
                "Now add a service worker that caches the visitor's language pack at the entrance, and make "
                "loadTrack.ts play from that cache.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"mp3[^\n]{0,120}(rather than|instead of|not hls|over hls|hls[^\n]{0,60}(stall|signal|connect)"
                    r"|ahead of time|in advance|pre.?(fetch|load|cach|download))"
                ],
                [
                    r"(go|going|went) with hls|hls[^.\n]{0,20}(chosen|decided|wins)|chose hls|switch\w*( the guide)? to hls|(use|adopt) hls"
                ],
            ),
            "learnt": ([r"\blfs\b|large file storage"], []),
            "measured": ([r"13[,. ]?320|3 ?h(ours?|rs?)?[ ,]*(and )?42|222 ?min"], []),
            "asked": (
                [
                    kept(
                        r"qr",
                        _KEEP + r"|keep\w* working|still work|continue to work|must (still )?(work|resolve)"
                        r"|(don'?t|not|never) break",
                    )
                ],
                [
                    r"qr codes?[^.\n]{0,20}(will|must|should|to) be (regenerat|reprint|replac|chang)|(regenerat|reprint)\w* "
                    r"(the |all )?qr"
                ],
            ),
            "role": (
                [
                    r"loadtrack\.ts",
                    r"scan|whole track|entire (track|file|mp3)|before (it )?play|download\w*[^.\n]{0,30}(whole|entire|"
                    r"full)",
                ],
                [],
            ),
            "request": ([r"service.worker", r"language( pack)?", r"loadtrack|play\w* from (the |that )?cache"], []),
            "stated": (
                [r"offline|no (signal|connectivity|network|connection)|without (signal|connectivity|network)"],
                [],
            ),
            "todo": ([r"kid|child", r"track|version|tour"], []),
            "detail": ([r"media\.museum\.local:9443"], []),
        },
        "good": {
            "goal": "Stop the museum audio guide from stuttering in the east wing.",
            "decisions": [
                "Tracks stay plain MP3s, downloaded in advance, not HLS: streaming needs a live connection, which "
                "the basement galleries lack; a service worker fetches the visitor's language pack over the "
                "entrance Wi-Fi."
            ],
            "context": [
                "Media host: media.museum.local:9443 (path /guide/).",
                "Audio library: 148 tracks, 3 h 42 min in all (every language).",
            ],
            "files": [
                "src/player/loadTrack.ts: called when a visitor scans an exhibit's code; fetches the entire MP3 before "
                "playback starts, hence the waits and gaps on a weak signal."
            ],
            "errors": [
                "`git push` rejected: media/guide/pack_fr.zip (236 MB) is over the host's 100 MB limit. Fix: track "
                "the packs with Git LFS and commit them again."
            ],
            "done": ["Read the player's loading code; measured the audio library."],
            "rules": [
                "The QR codes already on the exhibits must keep working (reprinting is too expensive).",
                "Everything runs with no connectivity inside the building; the basement has no signal.",
                "A kids' track per exhibit comes later, not in this round.",
            ],
            "asks": ["HLS or MP3 downloads, which way?", "Commit and push."],
            "next": ["Service worker that precaches the language pack at the entrance; loadTrack.ts plays from it."],
            "now": "Writing the service worker that caches the visitor's language pack at the entrance so that "
            "loadTrack.ts plays from the cache.",
        },
        "bad": {
            "goal": "Audio issue.",
            "decisions": ["Switch the guide to HLS streaming."],
            "errors": ["Push failed."],
            "rules": ["QR codes will be regenerated with the new URLs."],
            "next": ["Add a service worker caching the language pack; loadTrack.ts plays from the cache."],
            "now": "Service worker for the language pack at the entrance; loadTrack.ts plays from that cache.",
        },
    },
    {
        "name": "donorcalls",
        "format": "claude_code",
        "cwd": "/home/dev/donorcalls",
        "events": [
            (
                "user",
                "Blood donors keep missing their appointments since we moved the reminder texts. Between Twilio and "
                "the hospital's own SMS gateway, which would you trust for the reminders?",
            ),
            ("say", "I'll check how the reminders are sent today first."),
            (
                "tool",
                "read",
                "reminders/dispatch.py",
                "def dispatch(appt):\n    if appt.donor.opt_out:\n        return\n"
                "    gateway.send(appt.donor.phone, render(appt))\n",
                False,
            ),
            (
                "say",
                "reminders/dispatch.py is the last step before a text leaves: it skips donors who opted out and hands "
                "the rendered message to the SMS gateway client, with no retry if the gateway refuses it.",
            ),
            (
                "user",
                "Shall we keep the opt-out list out of this entirely? The data protection officer reviews every change "
                "to it.",
            ),
            ("tool", "bash", "ls -la templates/sms/", listing("sms"), False),
            ("user", "Never text a donor between 9 pm and 8 am."),
            ("user", "How many reminders bounced last month?"),
            ("tool", "bash", "grep -c 'status=UNDELIVERED' logs/sms-2026-11.log", "1874", False),
            ("say", "Those are the undelivered ones only; accepted messages aren't counted there."),
            ("user", "Twilio or the gateway?"),
            (
                "say",
                "The hospital's gateway. It already holds the donors' consent records, and sending health-related "
                "texts through a US provider would need a new data processing agreement; the bounces come from the "
                "missing retry, not from the gateway.",
            ),
            (
                "user",
                "Reminders go out 48 hours before the appointment. And later we should send a thank-you text after a "
                "donation, not in this change.",
            ),
            ("user", "Send a test reminder to my phone."),
            (
                "tool",
                "bash",
                "python -m reminders.send_test --to +4915112345678",
                "socket.gaierror: [Errno -2] Name or service not known: 'sms-gw.hospital.internal'",
                True,
            ),
            (
                "say",
                "sms-gw.hospital.internal only resolves inside the hospital network, so this machine has to be on the "
                "VPN (`vpnc hospital`) before anything can reach the gateway.",
            ),
            (
                "user",
                "Now add three retries with backoff in dispatch.py when the gateway refuses a message, and log each "
                "refusal.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"(hospital'?s|in.house|own|internal) (sms )?gateway[^\n]{0,160}(rather than|instead of|not twilio|"
                    r"over twilio|us provider|data processing|\bdpa\b|consent)"
                ],
                [
                    r"(go|going|went) with twilio|(switch|mov)\w*( the reminders)? to twilio|twilio[^.\n]{0,20}(chosen|decided|wins)"
                    r"|chose twilio|(use|adopt) twilio"
                ],
            ),
            "learnt": ([r"\bvpn"], []),
            "measured": ([r"1[,. ]?874"], []),
            "asked": (
                [
                    r"opt.out (list|register)[^.\n]{0,60}("
                    + _KEEP
                    + r"|out of scope|excluded|not part)|("
                    + _KEEP
                    + r"|leave|keep)[^.\n]{0,50}opt.out (list|register)"
                ],
                [],
            ),
            "role": (
                [
                    r"dispatch\.py",
                    r"last step|final step|hands? (it|the (rendered )?(text|message))|no retr\w*|without (any )?retr"
                    r"|skips?[^.\n]{0,30}opt",
                ],
                [],
            ),
            "request": ([r"dispatch", r"retr(y|ies)|re.?send", r"three|\b3\b|3×|3x", r"\blog"], []),
            "stated": ([r"9 ?pm|21:00|21h|\bnine\b", r"8 ?am|08:00|\b8:00|\beight\b"], []),
            "todo": ([r"thank"], []),
            "detail": ([r"48 ?h(ours|rs)?|two days|2 days"], []),
        },
        "good": {
            "goal": "Donors miss appointments since the reminder texts moved; make the reminders reliable.",
            "decisions": [
                "Stay on the hospital's in-house SMS gateway rather than Twilio: it holds the consent records, and a "
                "US provider for health texts would need a new data processing agreement.",
                "The bounces are caused by the missing retry, not by the gateway.",
            ],
            "context": [
                "Undelivered reminders in November: 1,874.",
                "The gateway host (sms-gw.hospital.internal) resolves only on the hospital network.",
            ],
            "files": [
                "reminders/dispatch.py: final step before a text goes out; skips opted-out donors and passes the "
                "rendered message to the gateway client, with no retry on refusal."
            ],
            "errors": [
                "Test send failed: name resolution error for the gateway host. Fix: connect to the hospital VPN first."
            ],
            "rules": [
                "Leave the opt-out list out of scope: the DPO reviews every change to it.",
                "No texts to donors 21:00-08:00.",
                "Reminders go out two days before the appointment.",
                "Later, not now: a thank-you text after a donation.",
            ],
            "asks": ["Twilio or the gateway?", "Send a test reminder to my phone."],
            "next": ["In dispatch.py, retry a refused message 3 times with exponential backoff and log every refusal."],
            "now": "Adding retries with backoff (3 attempts) to dispatch.py for refused messages, logging each refusal.",
        },
        "bad": {
            "goal": "Texts.",
            "decisions": ["Move the reminders to Twilio."],
            "context": ["Some reminders bounced."],
            "rules": ["Don't text people at night."],
            "next": ["Add three retries with backoff in dispatch.py and log refusals."],
            "now": "Retries with backoff in dispatch.py (3), logging each refusal.",
        },
    },
    {
        "name": "orchardwater",
        "format": "claude_code",
        "cwd": "/home/dev/orchardwater",
        "events": [
            (
                "user",
                "The drip irrigation ran for six hours on Tuesday and flooded block C. Pick one for me: a cron "
                "schedule on each valve controller, or the central server pushing the watering plan.",
            ),
            ("say", "Let me see how the controllers get their plan now."),
            (
                "tool",
                "read",
                "controller/plan_sync.go",
                "func Sync() {\n\tplan, err := fetchPlan(serverURL)\n\tif err != nil {\n"
                "\t\treturn // keep running the last plan\n\t}\n\tapply(plan)\n}\n",
                False,
            ),
            (
                "say",
                "controller/plan_sync.go pulls the watering plan from the server every few minutes; when the pull "
                "fails it silently keeps running the last plan it had, which is how a stale six-hour plan kept going "
                "on Tuesday.",
            ),
            (
                "user",
                "Do we really have to reflash the valve boards for this? I'd rather not drive out to every block.",
            ),
            ("user", "Water must never run while the frost alarm is on."),
            ("tool", "bash", "ls -la firmware/", listing("fw"), False),
            ("user", "How long does a full watering cycle take?"),
            ("tool", "bash", "curl -s http://10.20.0.5:8080/api/v1/cycle/last | jq .duration_ms", "5400000", False),
            ("say", "That's the last complete cycle across all blocks."),
            ("user", "Cron or push?"),
            (
                "say",
                "Cron on the controllers. Each controller then waters on its own schedule even when the radio link to "
                "the server is down, and a plan it can't refresh simply isn't run past its end time, whereas a push "
                "would still depend on the link that failed on Tuesday.",
            ),
            (
                "user",
                "The controller API is at http://10.20.0.5:8080/api/v1. Eventually we'll want soil-moisture sensors to "
                "skip watering after rain, but that's for spring.",
            ),
            ("user", "Deploy the new controller build to block A first."),
            (
                "tool",
                "bash",
                "scp build/controller-arm root@block-a:/opt/irrig/bin/controller",
                'scp: dest open "/opt/irrig/bin/controller": Read-only file system',
                True,
            ),
            (
                "say",
                "The controllers boot with a read-only root filesystem to survive power cuts; a deploy has to remount "
                "it read-write with `mount -o remount,rw /` first and back to read-only afterwards.",
            ),
            (
                "user",
                "Now write the cron plan loader in plan_sync.go so a plan past its end time is never run, and keep the "
                "pull as a fallback.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"cron[^\n]{0,160}(rather than|instead of|not (a |the )?(server |central )?push|over (a |the )?push"
                    r"|push\w*[^\n]{0,60}(link|radio|depend|rel[yi])|(link|radio)[^\n]{0,30}(down|fail))"
                ],
                [
                    r"(go|going|went|switch\w*) (with|to) (a |the )?(central |server )?push|push\w*[^.\n]{0,20}"
                    r"(chosen|decided|wins)|decided[^.\n]{0,10}(central |server )*push|chose (a |the )?(central )?push"
                ],
            ),
            "learnt": ([r"remount|read.write|\brw\b"], []),
            "measured": ([r"5[,. ]?400[,. ]?000|90 ?min|1\.5 ?h(ours?|rs?)?\b|an hour and a half"], []),
            "asked": (
                [
                    r"(no|not|never|avoid|without|don'?t|n'?t)\b[^.\n]{0,30}re.?flash|re.?flash\w*[^.\n]{0,40}(not|avoid"
                    r"|off the table|excluded|out of scope|unnecessary|no need)"
                ],
                [r"(^|\n)[ \-*\d.]*re.?flash"],
            ),
            "role": (
                [
                    r"plan_sync\.go",
                    r"last plan|stale plan|keeps? (running|executing)|silent|quiet|every few minutes|when (the |a )?"
                    r"(pull|fetch) fails",
                ],
                [],
            ),
            "request": (
                [r"plan_sync", r"cron", r"end time|expir|past its end|stale|out.of.date", r"pull|fallback"],
                [],
            ),
            "stated": (
                [
                    r"frost[^\n]{0,60}(never|\bno\b|\bnot\b|\boff\b|block|stop|suspend|disabl)|(never|\bno\b|stop|block)"
                    r"[^\n]{0,60}frost"
                ],
                [],
            ),
            "todo": ([r"soil.moisture|moisture sensor"], []),
            "detail": ([r"10\.20\.0\.5:8080"], []),
        },
        "good": {
            "goal": "Irrigation ran six hours on Tuesday (1 Dec) and flooded block C; make watering fail safe.",
            "decisions": [
                "Scheduling by cron on each controller, not a server push: a controller keeps its schedule when the "
                "radio link is down, while a push would still rely on the link that failed on Tuesday."
            ],
            "context": ["Controller API: 10.20.0.5:8080 (/api/v1).", "A full watering cycle takes 1.5 h (all blocks)."],
            "files": [
                "controller/plan_sync.go: fetches the plan from the server every few minutes; on a failed fetch it "
                "quietly keeps executing its last plan (the cause of Tuesday's six-hour run)."
            ],
            "errors": [
                "Deploy to block A: scp hit 'Read-only file system'. The root fs is mounted read-only on purpose "
                "(power cuts): remount it rw before copying and ro again after."
            ],
            "rules": [
                "No reflashing of the valve boards (it would mean a trip to every block).",
                "Frost alarm on: no watering, ever.",
                "For spring: soil-moisture sensors to skip watering after rain.",
            ],
            "asks": ["Cron or push?", "Deploy the new controller build to block A first."],
            "next": [
                "In plan_sync.go, load the plan into cron so an expired plan never runs; pulling stays as the fallback.",
                "Then redeploy to block A.",
            ],
            "now": "Cron plan loader in plan_sync.go: never run a plan past its end time; the pull stays as fallback.",
        },
        "bad": {
            "goal": "Irrigation fix.",
            "decisions": ["Decided: central server push."],
            "context": ["Controller API on the LAN."],
            "rules": ["Reflash the valve boards with the new build."],
            "next": [
                "Cron plan loader in plan_sync.go, never run a plan past its end time, keep the pull as fallback."
            ],
            "now": "Write the cron plan loader in plan_sync.go; keep the pull as a fallback.",
        },
    },
    {
        "name": "skipass",
        "format": "codex",
        "cwd": "/home/dev/skipass",
        "events": [
            (
                "user",
                "The turnstiles at the lower lift take ages to read some season passes. If it were your project, would "
                "you read the passes with the NFC reader vendor's SDK or with plain PC/SC?",
            ),
            ("say", "I'll look at the reader code before I answer."),
            (
                "tool",
                "read",
                "gate/reader.py",
                "def read_pass():\n    for attempt in range(5):\n        uid = sdk.poll(timeout=0.5)\n"
                "        if uid:\n            return lookup(uid)\n    return None\n",
                False,
            ),
            (
                "say",
                "gate/reader.py decides whether a gate opens: it polls the reader up to five times for a card and "
                "looks the pass up in the local copy of the ticket database.",
            ),
            (
                "user",
                "You won't need to restart the gates during opening hours, right? The lifts run 8:30 to 16:30.",
            ),
            ("user", "A pass that can't be read must open nothing. No fallback to waving people through."),
            ("tool", "bash", "ls -la logs/gates/", listing("gate"), False),
            ("user", "How long does a read take right now?"),
            (
                "tool",
                "bash",
                "python tools/latency.py --gate lower-3 --last 1000",
                "reads: 1000\nmean read latency: 0.412 s\np95: 1.9 s",
                False,
            ),
            ("say", "That's over the last thousand reads at gate lower-3."),
            ("user", "SDK or PC/SC then?"),
            (
                "say",
                "Plain PC/SC. The vendor SDK polls with a fixed half-second timeout we can't change, which is where "
                "the slow reads come from; PC/SC lets us wait for the card event instead, and it works with the spare "
                "readers from the other brand too.",
            ),
            (
                "user",
                "The ticket DB replica is on postgres://gate-ro@10.3.1.15:5433/tickets. One day we'd also like to show "
                "the skier's remaining rides on the gate display, not now.",
            ),
            ("user", "Install what's needed for PC/SC."),
            (
                "tool",
                "bash",
                "pip install pyscard",
                "error: command 'swig' failed: No such file or directory\n"
                "  src/smartcard/scard/winscard.h: No such file or directory\n"
                "ERROR: Failed building wheel for pyscard",
                True,
            ),
            (
                "say",
                "pyscard builds against the PC/SC headers, so the gate image needs `swig` and `libpcsclite-dev` "
                "installed with apt before pip can build it.",
            ),
            (
                "user",
                "Now rewrite read_pass in reader.py on PC/SC with a card-present event instead of the polling loop.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"pc/?sc[^\n]{0,160}((rather than|instead of|not|over) (the )?(nfc )?(reader )?(vendor'?s? )?sdk"
                    r"|sdk[^\n]{0,60}(timeout|half.second|0\.5|fixed|slow)|(other|second|spare)[^\n]{0,20}"
                    r"(brand|vendor|readers))"
                ],
                [
                    r"(go|going|went|stay\w*|stick\w*) (with|on) the (vendor'?s? )?sdk|sdk[^.\n]{0,20}(chosen|decided|"
                    r"wins)|chose the (vendor'?s? )?sdk|keep (using )?the (vendor'?s? )?sdk"
                ],
            ),
            "learnt": ([r"pcsclite"], []),
            "measured": ([r"0?\.412 ?s|412 ?ms"], []),
            "asked": (
                [
                    r"(no|not|never|avoid|without|n'?t)\b[^.\n]{0,30}(restart|reboot)|(restart|reboot)\w*[^.\n]{0,60}"
                    r"(outside|after|before) (the )?(opening|operating|lift) hours"
                ],
                [],
            ),
            "role": (
                [
                    r"reader\.py",
                    r"(decid|determin)\w*[^.\n]{0,30}(open|gate)|whether (a |the )?gate opens|(five|5) (times|tries|"
                    r"attempts|polls)|5×|local (copy|replica)|looks? (the )?pass up",
                ],
                [],
            ),
            "request": ([r"read_pass|reader\.py", r"pc/?sc", r"event"], []),
            "stated": (
                [
                    r"(fail|can'?t|cannot|unread\w*|not (be )?read)[^.\n]{0,60}(open\w* nothing|stays? (shut|closed)|"
                    r"no (entry|access)|(keep|remain)\w* (shut|closed)|must not open|never open)|fail.closed|no "
                    r"fallback"
                ],
                [],
            ),
            "todo": ([r"(remaining|left)[^.\n]{0,20}rides?|rides? (left|remaining)"], []),
            "detail": ([r"10\.3\.1\.15:5433"], []),
        },
        "good": {
            "goal": "Make the lower-lift turnstiles read season passes quickly.",
            "done": ["Mean read at gate lower-3: 412 ms over the last 1,000 reads (p95 1.9 s)."],
            "decisions": [
                "Use plain PC/SC rather than the vendor SDK: the SDK's fixed 0.5 s poll timeout causes the slow "
                "reads; PC/SC can wait on the card event and also drives the other brand's spare readers."
            ],
            "errors": ["`pip install pyscard` failed to build (no swig, no winscard.h)."],
            "rules": [
                "Gate restarts only outside lift hours (08:30-16:30).",
                "Fail closed: an unreadable pass opens nothing, no let-through fallback.",
                "Install swig and libpcsclite-dev via apt first; pyscard compiles against the PC/SC headers.",
            ],
            "now": "Rewrite read_pass in reader.py on PC/SC, driven by the card-present event instead of the poll loop.",
            "next": ["Later: remaining rides on the gate display (not now)."],
            "files": [
                "gate/reader.py: decides whether a gate opens; polls the reader up to 5 times for a card, then looks "
                "the pass up in the local ticket DB copy."
            ],
            "context": ["Read-only ticket DB replica: 10.3.1.15:5433, database tickets, user gate-ro."],
        },
        "bad": {
            "goal": "Gates slow.",
            "done": ["Measured the reads."],
            "decisions": ["Keep the vendor SDK and tune its settings."],
            "rules": ["Restart the gates when needed."],
            "now": "Rewrite read_pass in reader.py on PC/SC using a card-present event instead of the polling loop.",
            "next": ["Continue."],
        },
    },
    {
        "name": "fuelcards",
        "format": "codex",
        "cwd": "/home/dev/fuelcards",
        "events": [
            (
                "user",
                "Fuel card transactions from the supplier don't match our vehicles for about one line in twenty. Card "
                "number or number plate: which is the saner key to match on?",
            ),
            ("say", "Let me read the matcher first."),
            (
                "tool",
                "read",
                "recon/match.py",
                "def match(tx, fleet):\n    return fleet.by_plate.get(normalise(tx.plate))\n",
                False,
            ),
            (
                "say",
                "recon/match.py assigns each supplier transaction to a vehicle, and it does so by the plate the driver "
                "typed at the pump, after stripping spaces and dashes.",
            ),
            (
                "user",
                "Could we do this without adding a column to the ledger table? Finance's reports read it by column "
                "position.",
            ),
            ("user", "Don't round the litres, finance wants three decimals."),
            ("tool", "bash", "ls -la statements/", listing("stmt"), False),
            ("user", "How many lines failed to match last month?"),
            (
                "tool",
                "bash",
                "python -m recon.report --month 2026-11",
                "matched: 38404\nunmatched: 2803\ntotal: 41207",
                False,
            ),
            ("say", "That is November's supplier statement in full."),
            ("user", "So, card or plate?"),
            (
                "say",
                "Card number. The card is read by the pump's terminal, so it has no typos, while the plate is typed in "
                "by the driver; the one snag is cards moved between vehicles, which the fleet's card assignment "
                "history covers.",
            ),
            (
                "user",
                "The statement we reconcile is always last month's. Later on we want to flag cards used twice within "
                "ten minutes, not in this change.",
            ),
            ("user", "Load the November statement."),
            (
                "tool",
                "bash",
                "python -m recon.load statements/fuel-2026-11.csv",
                "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 18811: invalid continuation byte",
                True,
            ),
            (
                "say",
                "The supplier writes its CSV exports in Latin-1 (station names like 'Sainte-Hélène'), so the loader "
                "must open them with encoding='latin-1' instead of UTF-8.",
            ),
            (
                "user",
                "Now switch match.py to match on the card number, using the card assignment history for cards that "
                "moved between vehicles.",
            ),
        ],
        "facts": {
            "concluded": (
                [
                    r"card (number|id|no\.?)[^\n]{0,120}(rather than|instead of|not (the )?(number )?plate|over (the )?"
                    r"(number )?plate|plate[^\n]{0,60}(typ|typo|driver|manual|by hand)|(no|without) typos|terminal)"
                ],
                [
                    r"(go|going|went|stay\w*|stick\w*) (with|on) (the )?(number )?plates?\b|plates?[^.\n]{0,20}(chosen|"
                    r"decided|wins)|chose (the )?(number )?plate"
                ],
            ),
            "learnt": ([r"latin.?1|iso.?8859.?1|cp1252|windows-1252"], []),
            "measured": ([r"2[,. ]?803"], []),
            "asked": (
                [
                    r"ledger[^\n]{0,60}((no|not|never|avoid|without|n'?t)\b[^.\n]{0,20}(new |extra |additional )?"
                    r"columns?|(schema|columns?)[^.\n]{0,30}(unchanged|as.is|frozen|fixed|untouched|stays?))"
                    r"|(no|not|never|avoid|without|n'?t)\b[^.\n]{0,20}(new |extra |additional )?columns?[^.\n]{0,40}"
                    r"ledger"
                ],
                [r"(?<!without )add(ing|ed)? (a |an )?(new )?(\w+ )?column to the ledger|(new|extra) ledger column"],
            ),
            "role": (
                [
                    r"match\.py",
                    r"(transaction|line)s?[^.\n]{0,30}to (a |its |the )?vehicle|by (the )?(typed |driver.typed )?plate"
                    r"|plate[^.\n]{0,30}(typed|entered|keyed)|strip\w* (spaces|dashes)",
                ],
                [],
            ),
            "request": ([r"match\.py|matcher", r"card", r"assignment|history|moved|reassign|transferr"], []),
            "stated": (
                [
                    r"litre|liter|volume",
                    r"(three|3) decimals|3 ?d\.?p|\d\.\d{3}|unrounded|not round|no rounding|don'?t round|never round",
                ],
                [],
            ),
            "todo": ([r"twice|double|duplicate|two (uses|transactions)", r"ten minutes|10 ?min"], []),
            "detail": ([r"last month|previous month|november|2026-11|\bnov\b"], []),
        },
        "good": {
            "goal": "Cut the ~5 % of supplier fuel-card transactions that fail to match a vehicle.",
            "done": ["November: 2,803 of 41,207 lines unmatched (6.8 %)."],
            "decisions": [
                "Key on the card number rather than the plate: the pump terminal reads the card (no typos), the plate "
                "is typed by the driver; cards moved between vehicles are covered by the card-assignment history."
            ],
            "errors": ["Loading fuel-2026-11.csv failed: UnicodeDecodeError (byte 0xe9)."],
            "rules": [
                "Ledger table: no new columns (Finance's reports read it by position).",
                "Litres unrounded, 3 dp.",
                "Supplier CSVs are Latin-1: open them as latin-1, not UTF-8.",
            ],
            "now": "Switch match.py to card-number matching; reassigned cards are resolved through the assignment "
            "history.",
            "next": [
                "Reload the November statement with the encoding fix.",
                "Later, not this change: flag a card used twice within 10 min.",
            ],
            "files": [
                "recon/match.py: assigns each supplier line to a vehicle by the driver-typed plate (spaces and dashes "
                "stripped)."
            ],
            "context": ["The reconciled statement is always the previous month's."],
        },
        "bad": {
            "goal": "Fuel matching.",
            "done": ["Ran the report."],
            "decisions": ["Stick with the plate, normalise it harder."],
            "rules": ["Add a card_id column to the ledger table."],
            "now": "Switch match.py to card numbers, with the assignment history for moved cards.",
            "next": ["Continue."],
        },
    },
]
