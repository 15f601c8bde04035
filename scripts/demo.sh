#!/usr/bin/env bash
# demo.sh - the main job: a disposable publisher/subscriber pair, a real
# backlog, a measurement and a diagnosis. Everything is removed afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
# Downloaded servers must be readable by the unprivileged server account.
export LAGSCOPE_CACHE=${LAGSCOPE_CACHE:-/var/cache/lagscope}
export LAGSCOPE_LAB_DIR=${LAGSCOPE_LAB_DIR:-/tmp/lagscope-lab}
mkdir -p "$LAGSCOPE_LAB_DIR" && chmod 755 "$LAGSCOPE_LAB_DIR"
scenario=${1:-apply-bound}
echo "lagscope demo: 'lab run $scenario' on this machine (about a minute)"
exec ./bin/lagscope lab run "$scenario" --diagnose --rows "${ROWS:-300000}" --duration "${DURATION:-20s}" ${DEMO_FLAGS:-}
