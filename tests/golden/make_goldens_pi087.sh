#!/usr/bin/env bash
# Regenerates the goldens for *current* pi (@earendil-works/pi-coding-agent 0.87.1,
# whose planner is the same code as 1.5.2): pi's own projected planner, run through
# the pi-oracle dev tool (needs node; the tool installs Node 24 on first use), on the
# same sessions and keepRecentTokens values as make_goldens.sh (pi 0.73.1).
# Output: tests/golden/pi-0.87/<stem>.golden.json. Timings (`ms`) are dropped and the
# source path is made relative, so the JSON is a stable fixture. It does not rebuild
# the hand-made sessions (make_goldens.sh does that): it reads them as they are.
#   tests/golden/make_goldens_pi087.sh            # hand-made sessions and samples
#   tests/golden/make_goldens_pi087.sh samples    # only sample_sessions/pi-*.jsonl
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
oracle=${PI_ORACLE:-$root/../shared/tools/pi-oracle/run}
export PI_VERSION=${PI_VERSION:-0.87.1}
cd "$root"
python=${PYTHON:-/tmp/cvenv/bin/python}
[ -x "$python" ] || python=python3
only=${1:-all}
out=tests/golden/pi-0.87
mkdir -p "$out"
keeps_handmade="0 1 100 500 2000 5000 20000 50000"
keeps_samples="2000 5000 20000 50000"
make() {  # make SOURCE KEEPS...
  local src=$1; shift
  local stem; stem=$(basename "$src" .jsonl)
  "$oracle" "$src" "$@" | "$python" -c '
import hashlib, json, sys
data = json.load(sys.stdin)
data["source"] = sys.argv[1]
data["sourceSha256"] = hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()
data.pop("file", None)
for plan in data["plans"].values():
    if plan:
        plan.pop("ms", None)
json.dump(data, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
' "$src" > "$out/$stem.golden.json"
  echo "$out/$stem.golden.json"
}
if [ "$only" != samples ]; then
  for f in tests/golden/sessions/*.jsonl; do make "$f" $keeps_handmade; done
fi
for f in sample_sessions/pi-*.jsonl; do [ -e "$f" ] && make "$f" $keeps_samples; done
exit 0
