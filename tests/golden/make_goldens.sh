#!/usr/bin/env bash
# Regenerates the parity goldens: pi's own planning (the published package, via the
# pi-oracle dev tool; needs node) for every pi session we test against, at several
# keepRecentTokens values. Timings (`ms`) are dropped and the source path is made
# relative, so the JSON is a stable fixture. Run from anywhere:
#   tests/golden/make_goldens.sh            # hand-made sessions and samples
#   tests/golden/make_goldens.sh samples    # only sample_sessions/pi-*.jsonl
# GOLDEN_OUT (default tests/golden) is where they go; REBUILD_HANDMADE=0 reads the
# hand-made sessions as they are instead of regenerating them first.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
oracle=${PI_ORACLE:-$root/../shared/tools/pi-oracle/run}
cd "$root"
python=${PYTHON:-/tmp/cvenv/bin/python}
[ -x "$python" ] || python=python3
only=${1:-all}
out=${GOLDEN_OUT:-tests/golden}
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
  [ "${REBUILD_HANDMADE:-1}" = 0 ] || "$python" tests/golden/handmade.py >/dev/null
  for f in tests/golden/sessions/*.jsonl; do make "$f" $keeps_handmade; done
fi
for f in sample_sessions/pi-*.jsonl; do [ -e "$f" ] && make "$f" $keeps_samples; done
exit 0
