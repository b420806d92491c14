#!/usr/bin/env bash
# Regenerates the goldens for *current* pi (@earendil-works/pi-coding-agent 0.87.1,
# whose planner is the same code as 1.5.2): make_goldens.sh run with pi's own
# projected planner of that version (the pi-oracle dev tool installs Node 24 on first
# use), on the same sessions and keepRecentTokens values, into tests/golden/pi-0.87/.
# The hand-made sessions are read as they are (make_goldens.sh rebuilds them).
#   tests/golden/make_goldens_pi087.sh            # hand-made sessions and samples
#   tests/golden/make_goldens_pi087.sh samples    # only sample_sessions/pi-*.jsonl
set -euo pipefail
export PI_VERSION=${PI_VERSION:-0.87.1} GOLDEN_OUT=tests/golden/pi-0.87 REBUILD_HANDMADE=0
exec "$(dirname "$0")/make_goldens.sh" "$@"
