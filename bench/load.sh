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
# limit), node (interop/bench/paced.mjs), and two more shapes of the Rust server, not run
# unless named: rust-resumable (the same agent behind a resumable endpoint, its MemoryLog
# keeping every run; the "log KB/run" column is what the log holds by its configuration,
# read from the server when it stops, and is part of "KB/run") and rust-model (the model
# bridge, LlmAgent, before the paced model: `paced-model`, in a process of its own, streams
# the same deltas at the same pace as OpenAI Chat Completions chunks).
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
# The model bridge holds a socket to its client and one to the model.
[[ " $SERVERS " == *" rust-model "* ]] && need=$((2 * max_runs + 256))
if (($(ulimit -n) < need)); then
  ulimit -n "$need" 2>/dev/null || {
    echo "load.sh: $max_runs runs need ulimit -n $need (hard limit $(ulimit -Hn))" >&2
    exit 2
  }
fi

# AG_UI / PACED: other builds of the load generator or the agent (e.g. a "before" build).
[[ -n "${NO_BUILD:-}" ]] || cargo build --release -q -p ag-ui-cli -p ag-ui-example-paced-agent --bins
AG_UI="${AG_UI:-$TARGET/release/ag-ui}"
PACED="${PACED:-$TARGET/release/ag-ui-example-paced-agent}"
MODEL="${MODEL:-$TARGET/release/paced-model}"
if [[ " $SERVERS " == *" node "* && ! -d interop/node_modules/@ag-ui/encoder ]]; then
  npm ci --prefix interop --no-audit --no-fund >/dev/null
fi
mkdir -p "$OUT"

# Prints what process $1's log ($2) says after "$3 " once it says it.
announced() {
  local said=""
  for _ in $(seq 100); do
    said=$(sed -n "s/^$3 //p" "$2")
    [[ -n "$said" ]] && break
    sleep 0.1
  done
  [[ -n "$said" ]] || { echo "load.sh: $1 did not start: $(cat "$2")" >&2; exit 1; }
  echo "$said"
}

# Starts server $1 on a free port (and for rust-model the paced model first); sets
# SERVER_PID, MODEL_PID (or empty) and URL.
start() {
  local log="$OUT/server-$1.log" connections=$((max_runs + 64))
  local paced=("$PACED" 127.0.0.1:0 --deltas "$K" --every-ms "$P" --max-connections "$connections")
  MODEL_PID=""
  case "$1" in
    rust) "${paced[@]}" >"$log" 2>&1 & ;;
    rust-resumable) "${paced[@]}" --resumable >"$log" 2>&1 & ;;
    rust-model)
      "$MODEL" 127.0.0.1:0 --deltas "$K" --every-ms "$P" >"$OUT/model.log" 2>&1 &
      MODEL_PID=$!
      local model_url
      model_url=$(announced "the paced model" "$OUT/model.log" "paced model on")
      "${paced[@]}" --model "$model_url" >"$log" 2>&1 &
      ;;
    node) node interop/bench/paced.mjs 127.0.0.1:0 "$K" "$P" >"$log" 2>&1 & ;;
    *) echo "load.sh: unknown server $1" >&2; exit 2 ;;
  esac
  SERVER_PID=$!
  URL=$(announced "the $1 server" "$log" "paced agent on")
  sleep 1 # settle: the idle baseline is taken by ag-ui load before its first run
}

# Stops the servers (SIGINT: a resumable server then says what its log holds).
stop() {
  kill -INT "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  if [[ -n "$MODEL_PID" ]]; then
    kill -INT "$MODEL_PID" 2>/dev/null || true
    wait "$MODEL_PID" 2>/dev/null || true
  fi
}

row='%-15s %6s  %11s  %7s  %11s  %8s  %9s  %14s  %8s  %s\n'
# shellcheck disable=SC2059
printf "$row" server runs completed "KB/run" "log KB/run" "peak MB" "TTFB p99" "gap p99 (P)" "CPU/1k" "client CPU"
for runs in $RUNS; do
  for server in $SERVERS; do
    for i in $(seq "$REPEAT"); do
      start "$server"
      report="$OUT/$server-$runs-$i.json"
      timeout=$((K * P / 1000 + 60))
      "$AG_UI" load "$URL" --runs "$runs" --ramp "$RAMP" --timeout "$timeout" --pid "$SERVER_PID" --json >"$report" || true
      stop
      log_bytes=$(sed -n 's/^log: [0-9]* runs, \([0-9]*\) bytes$/\1/p' "$OUT/server-$server.log")
      jq -r --arg server "$server" --arg p "$P" --arg log "${log_bytes:-}" '
        [ $server, .runs, "\(.completed)/\(.runs)",
          (.server.bytes_per_run / 1000 | . * 10 | round / 10),
          (if $log == "" then "-" else ($log | tonumber) / .runs / 1000 | . * 10 | round / 10 end),
          (.server.peak_rss_kib / 1024 | round),
          "\(.first_byte_ms.p99 | . * 100 | round / 100) ms",
          "\(.gap_ms.p99 | . * 10 | round / 10) (\($p)) ms",
          "\(.server.cpu_seconds_per_1000_runs | . * 1000 | round / 1000) s",
          "\(.client_cpu_seconds) s" ]
        | @tsv' "$report" |
        awk -F'\t' -v row="$row" '{ printf row, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }'
      jq -r '.reasons[]? | "  failed: " + .' "$report"
    done
  done
done
