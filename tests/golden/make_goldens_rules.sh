#!/usr/bin/env bash
# Regenerates the goldens of the planner rule sets from the agents' own code (needs node;
# the oracles install what they need on first use):
#   tests/golden/openclaw-2026.9/<stem>.golden.json  OpenClaw 2026.9.6 (../shared/tools/openclaw-oracle)
#     on tests/golden/sessions/*.jsonl, sample_sessions/pi-*.jsonl and tests/golden/sessions-rules/*.jsonl
#   tests/golden/pi-0.87/<stem>.golden.json  current pi 0.87.1 on tests/golden/sessions-rules/*.jsonl
#     (make_goldens_pi087.sh makes the others)
# OpenClaw reads pi-style transcripts but does not migrate pi's old formats: pi-v1-legacy.jsonl
# (no ids) is left out, and pi-v2-hookmessage.jsonl is planned from a copy migrated as pi does
# it (role hookMessage -> custom), kept next to the goldens. Timings are dropped and paths made
# relative, so the JSON is a stable fixture. Run tests/golden/handmade_rules.py first to
# rebuild the hand-made sessions.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=$root/../shared; [ -d "$shared" ] || shared=$root/../../shared  # a worktree sits one level deeper
oc=${OPENCLAW_ORACLE:-$shared/tools/openclaw-oracle/run}
pi=${PI_ORACLE:-$shared/tools/pi-oracle/run}
cd "$root"
python=${PYTHON:-python3}
keeps="0 1 100 500 2000 5000 20000 50000"
keeps_samples="2000 5000 20000 50000"
fix() {  # fix SOURCE: stable JSON on stdin -> stdout
  "$python" -c '
import hashlib, json, sys
data = json.load(sys.stdin)
data["source"] = sys.argv[1]
data["sourceSha256"] = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
data.pop("file", None)
for plan in data["plans"].values():
    if plan:
        plan.pop("ms", None)
text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))  # a lone surrogate stays a JSON escape
' "$1"
}
out=tests/golden/openclaw-2026.9
mkdir -p "$out/sessions"
sed 's/"role":"hookMessage"/"role":"custom"/g; s/"role": "hookMessage"/"role": "custom"/g' \
  sample_sessions/pi-v2-hookmessage.jsonl > "$out/sessions/pi-v2-hookmessage.migrated.jsonl"
for f in tests/golden/sessions/*.jsonl tests/golden/sessions-rules/*.jsonl; do
  "$oc" "$f" $keeps | fix "$f" > "$out/$(basename "$f" .jsonl).golden.json"
done
for f in sample_sessions/pi-*.jsonl "$out/sessions/pi-v2-hookmessage.migrated.jsonl"; do
  case "$f" in *v1-legacy*|sample_sessions/pi-v2-hookmessage.jsonl) continue;; esac
  "$oc" "$f" $keeps_samples | fix "$f" > "$out/$(basename "$f" .jsonl).golden.json"
done
for f in tests/golden/sessions-rules/*.jsonl; do
  PI_VERSION=0.87.1 "$pi" "$f" $keeps | fix "$f" > "tests/golden/pi-0.87/$(basename "$f" .jsonl).golden.json"
done
ls "$out"/*.golden.json tests/golden/pi-0.87/*.golden.json | wc -l
