#!/usr/bin/env bash
# The load benchmark of issue 26, side by side: the paced agent (K text deltas, one every P ms)
# served by this crate's axum endpoint (examples/paced-agent) and by @ag-ui/encoder on
# node:http (interop/bench/paced.mjs), each driven by `ag-ui load` at each run count, ramped
# in over RAMP seconds, with the server's pid for its memory and CPU. Each measurement starts a
# fresh server, so "idle" is the process before its first run. With no settings it measures
# every row of the README's Performance table, in one sitting (about 10 minutes), at nice -10
# when allowed (NICE=0 to leave the priority as it is), the load average printed before and after.
#
#   bash bench/load.sh                    # every server, 20 deltas every 500 ms, 5 s ramp
#   RUNS="1000" SERVERS=rust bash bench/load.sh
#   K=20 P=500 RAMP=5 REPEAT=3 bash bench/load.sh
#   PACED_BEFORE=/tmp/old/ag-ui-example-paced-agent bash bench/load.sh  # and an older build
#
# Servers (SERVERS, all by default, measured in this order at each run count):
#   rust            examples/paced-agent served by `ag_ui::axum::serve` (the quick start's
#                   way; ServeConfig defaults but the connection limit)
#   rust-axum       the same router served by plain `axum::serve`
#   node            @ag-ui/encoder on node:http (interop/bench/paced.mjs)
#   rust-resumable  the same agent behind a resumable endpoint, its MemoryLog keeping every
#                   run; the "log KB/run" column is what the log holds by its configuration,
#                   read from the server when it stops, and is part of "KB/run"
#   rust-model      the model bridge, LlmAgent, before the paced model (`paced-model`, in a
#                   process of its own, streams the same deltas at the same pace as OpenAI
#                   Chat Completions chunks), asked over h2c: a hundred runs a connection
#   rust-model-h1   the same bridge asking over HTTP/1.1: a connection a waiting run
# The plain servers run at RUNS (default 1,000 and 10,000), the model bridge at MODEL_RUNS
# (default 1,000 and 9,000: over HTTP/1.1 the bridge holds two sockets a run, and 10,000 runs
# would need more open files than this VM's hard limit of 20,000). PACED_BEFORE names another
# build of the paced agent (e.g. the main branch's, for a before/after in one sitting): each
# server of SERVERS_BEFORE (default "rust rust-model") is then measured with it too, right
# after the current build, as "NAME/before" (its own flags only: an older build's bridge asks
# over HTTP/1.1).
#
# Needs: cargo, node 18+ (npm ci --prefix interop, done here when missing), jq, and one open
# file per run for the load generator and one for the server (two for the bridge over
# HTTP/1.1): `ulimit -n` is raised to what it needs when the hard limit allows, else the
# script stops saying so. Not part of CI (10,000 paced runs take about 20 s each, and the
# build takes minutes); it prints one line per measurement, and the full reports of
# `ag-ui load --json` go to bench/out/ (not committed).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-1000 10000}"
MODEL_RUNS="${MODEL_RUNS:-1000 9000}"
K="${K:-20}"
P="${P:-500}"
RAMP="${RAMP:-5}"
REPEAT="${REPEAT:-1}"
SERVERS="${SERVERS:-rust rust-axum node rust-resumable rust-model rust-model-h1}"
PACED_BEFORE="${PACED_BEFORE:-}"
SERVERS_BEFORE="${SERVERS_BEFORE:-rust rust-model}"
OUT="${OUT:-bench/out}"
TARGET="${CARGO_TARGET_DIR:-target}"
NICE="${NICE:--10}"

# The run counts server $1 is measured at.
runs_of() {
  case "$1" in
    rust-model*) echo "$MODEL_RUNS" ;;
    *) echo "$RUNS" ;;
  esac
}

# The open files server $1 needs for $2 runs: a socket a run, and over HTTP/1.1 (the current
# build's rust-model-h1, any build's bridge before h2c) a second one to the model; over h2c
# one to the model per hundred runs.
files_for() {
  case "$1" in
    rust-model-h1 | rust-model/before) echo $((2 * $2 + 256)) ;;
    rust-model) echo $(($2 + $2 / 100 + 256)) ;;
    *) echo $(($2 + 256)) ;;
  esac
}

# Every measurement, in order: "RUNS SERVER", each server at each of its run counts (the
# counts in ascending order), its older build right after it.
plan=()
for runs in $(printf '%s\n' $RUNS $MODEL_RUNS | sort -nu); do
  for server in $SERVERS; do
    [[ " $(runs_of "$server") " == *" $runs "* ]] || continue
    plan+=("$runs $server")
    if [[ -n "$PACED_BEFORE" && " $SERVERS_BEFORE " == *" $server "* ]]; then
      plan+=("$runs $server/before")
    fi
  done
done
need=256
for measurement in "${plan[@]}"; do
  read -r runs server <<<"$measurement"
  files=$(files_for "$server" "$runs")
  ((files > need)) && need=$files
done
if (($(ulimit -n) < need)); then
  ulimit -n "$need" 2>/dev/null || {
    echo "load.sh: these runs need ulimit -n $need (hard limit $(ulimit -Hn))" >&2
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

# Starts server $1 for $2 runs on a free port (and for the bridge the paced model first);
# sets SERVER_PID, MODEL_PID (or empty) and URL. "NAME/before" is NAME with $PACED_BEFORE.
start() {
  local log="$OUT/server-${1//\//-}.log" connections=$(($2 + 64)) binary="$PACED"
  [[ "$1" == */before ]] && binary="$PACED_BEFORE"
  local paced=("$binary" 127.0.0.1:0 --deltas "$K" --every-ms "$P" --max-connections "$connections")
  MODEL_PID=""
  case "${1%/before}" in
    rust) "${paced[@]}" >"$log" 2>&1 & ;;
    rust-axum) "${paced[@]}" --axum-serve >"$log" 2>&1 & ;;
    rust-resumable) "${paced[@]}" --resumable >"$log" 2>&1 & ;;
    rust-model | rust-model-h1)
      "$MODEL" 127.0.0.1:0 --deltas "$K" --every-ms "$P" >"$OUT/model.log" 2>&1 &
      MODEL_PID=$!
      local model_url http1=()
      model_url=$(announced "the paced model" "$OUT/model.log" "paced model on")
      [[ "$1" == rust-model-h1 ]] && http1=(--model-http1)
      "${paced[@]}" --model "$model_url" "${http1[@]}" >"$log" 2>&1 &
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

# The servers and the load generator inherit it: builds sharing the machine then wait for them.
renice -n "$NICE" -p $$ >/dev/null 2>&1 || true
row='%-20s %6s  %11s  %7s  %11s  %8s  %9s  %14s  %8s  %s\n'
echo "load.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2059
printf "$row" server runs completed "KB/run" "log KB/run" "peak MB" "TTFB p99" "gap p99 (P)" "CPU/1k" "client CPU"
for measurement in "${plan[@]}"; do
  read -r runs server <<<"$measurement"
  for i in $(seq "$REPEAT"); do
    start "$server" "$runs"
    report="$OUT/${server//\//-}-$runs-$i.json"
    timeout=$((K * P / 1000 + 60))
    "$AG_UI" load "$URL" --runs "$runs" --ramp "$RAMP" --timeout "$timeout" --pid "$SERVER_PID" --json >"$report" || true
    stop
    log_bytes=$(sed -n 's/^log: [0-9]* runs, \([0-9]*\) bytes$/\1/p' "$OUT/server-${server//\//-}.log")
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
echo "load.sh: done at $(date -u '+%H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
