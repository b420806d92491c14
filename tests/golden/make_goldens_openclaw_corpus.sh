#!/usr/bin/env bash
# Regenerates OpenClaw 2026.9's own plans (the openclaw-oracle dev tool; needs node) for the OpenClaw
# corpus stores (tests/fixtures/corpus/openclaw/*/*.sqlite), as tests/golden/corpus-rules/*.openclaw.golden.json.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
oracle=${OPENCLAW_ORACLE:-$root/../shared/tools/openclaw-oracle/run}
python=${PYTHON:-python3}
cd "$root"
keeps="0 1 100 500 1000 2000 3000 5000 20000 50000"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
for src in tests/fixtures/corpus/openclaw/*/*.sqlite; do
  stem=$(echo "${src#tests/fixtures/corpus/}" | sed 's#/#-#g; s#\.sqlite$##')
  cp "$src" "$scratch/$stem.sqlite"  # the oracle opens the store read-write: -wal/-shm appear beside what it opens
  "$oracle" "$scratch/$stem.sqlite" -- $keeps | "$python" -c '
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
' "$src" > "tests/golden/corpus-rules/$stem.openclaw.golden.json"
  echo "tests/golden/corpus-rules/$stem.openclaw.golden.json"
done
