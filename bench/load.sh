#!/usr/bin/env bash
# The load benchmark of issue 26, side by side: the paced agent (K text deltas, one every P ms)
# served by this crate's axum endpoint (examples/paced-agent) and by @ag-ui/encoder on
# node:http (interop/bench/paced.mjs), each driven by `ag-ui load` at each run count, ramped
# in over RAMP seconds, with the server's pid for its memory and CPU. Each measurement starts a
# fresh server, so "idle" is the process before its first run.
#
#   bash bench/load.sh                    # 1,000 and 10,000 runs, 20 deltas every 500 ms, 5 s ramp
#   RUNS="1000" SERVERS=rust bash bench/load.sh
#   K=20 P=500 RAMP=5 REPEAT=3 bash bench/load.sh
#
# Servers (SERVERS): rust (examples/paced-agent, ServeConfig defaults but the connection
# limit), node (interop/bench/paced.mjs).
#
# Needs: cargo, node 18+ (npm ci --prefix interop, done here when missing), jq, and one open
# file per run for the load generator and one for the server: `ulimit -n` is raised to what
# it needs when the hard limit allows, else the script stops saying so. Not part of CI (10,000
# paced runs take about 20 s each, and the build takes minutes); it prints one line per
# measurement, and the full reports of `ag-ui load --json` go to bench/out/ (not committed).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-1000 10000}"
K="${K:-20}"
P="${P:-500}"
RAMP="${RAMP:-5}"
REPEAT="${REPEAT:-1}"
SERVERS="${SERVERS:-rust node}"
OUT="${OUT:-bench/out}"
TARGET="${CARGO_TARGET_DIR:-target}"

max_runs=0
for n in $RUNS; do ((n > max_runs)) && max_runs=$n; done
need=$((max_runs + 256))
if (($(ulimit -n) < need)); then
  ulimit -n "$need" 2>/dev/null || {
    echo "load.sh: $max_runs runs need ulimit -n $need (hard limit $(ulimit -Hn))" >&2
    exit 2
  }
fi

# AG_UI / PACED: other builds of the load generator or the agent (e.g. a "before" build).
[[ -n "${NO_BUILD:-}" ]] || cargo build --release -q -p ag-ui-cli -p ag-ui-example-paced-agent
AG_UI="${AG_UI:-$TARGET/release/ag-ui}"
PACED="${PACED:-$TARGET/release/ag-ui-example-paced-agent}"
if [[ " $SERVERS " == *" node "* && ! -d interop/node_modules/@ag-ui/encoder ]]; then
  npm ci --prefix interop --no-audit --no-fund >/dev/null
fi
mkdir -p "$OUT"

# Starts server $1 on a free port; sets SERVER_PID and URL.
start() {
  local log="$OUT/server-$1.log"
  case "$1" in
    rust) "$PACED" 127.0.0.1:0 --deltas "$K" --every-ms "$P" --max-connections $((max_runs + 64)) >"$log" 2>&1 & ;;
    node) node interop/bench/paced.mjs 127.0.0.1:0 "$K" "$P" >"$log" 2>&1 & ;;
  esac
  SERVER_PID=$!
  for _ in $(seq 100); do
    URL=$(sed -n 's/^paced agent on //p' "$log")
    [[ -n "$URL" ]] && break
    sleep 0.1
  done
  [[ -n "$URL" ]] || { echo "load.sh: the $1 server did not start: $(cat "$log")" >&2; exit 1; }
  sleep 1 # settle: the idle baseline is taken by ag-ui load before its first run
}

printf '%-9s %6s  %9s  %12s  %9s  %9s  %12s  %10s  %s\n' server runs completed "KB/run" "peak MB" "TTFB p99" "gap p99 (P)" "CPU/1k" "client CPU"
for runs in $RUNS; do
  for server in $SERVERS; do
    for i in $(seq "$REPEAT"); do
      start "$server"
      report="$OUT/$server-$runs-$i.json"
      timeout=$((K * P / 1000 + 60))
      "$AG_UI" load "$URL" --runs "$runs" --ramp "$RAMP" --timeout "$timeout" --pid "$SERVER_PID" --json >"$report" || true
      kill "$SERVER_PID" 2>/dev/null || true
      wait "$SERVER_PID" 2>/dev/null || true
      jq -r --arg server "$server" --arg p "$P" '
        [ $server, .runs, "\(.completed)/\(.runs)",
          (.server.bytes_per_run / 1000 | . * 10 | round / 10),
          (.server.peak_rss_kib / 1024 | round),
          "\(.first_byte_ms.p99 | . * 100 | round / 100) ms",
          "\(.gap_ms.p99 | . * 10 | round / 10) (\($p)) ms",
          "\(.server.cpu_seconds_per_1000_runs | . * 1000 | round / 1000) s",
          "\(.client_cpu_seconds) s" ]
        | @tsv' "$report" |
        awk -F'\t' '{ printf "%-9s %6s  %9s  %12s  %9s  %9s  %12s  %10s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
      jq -r '.reasons[]? | "  failed: " + .' "$report"
    done
  done
done
