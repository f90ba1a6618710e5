#!/usr/bin/env bash
# make test-real: the `hearth` CLI against a REAL llama.cpp server running a
# small real model (Qwen2.5-Coder-0.5B, CPU) through the OpenAI-compatible
# backend. Not part of CI: the first run builds llama-server and downloads
# ~500 MB (the realmodel tool, $REALMODEL below), and timings need quiet cores, so
# never run it beside a cargo build.
#
# Checks, each printed as PASS or FAIL:
#   1. a plain answer streams (several text deltas spread over time);
#   2. a tool call is made and executed (the calculator, with the right result);
#   3. the model's habit of calling the same tool again forever is ended by
#      the iteration cap (exit 1, the max-iterations message);
#   4. Stop (SIGINT after the first text) exits 130 at once, the server stops
#      generating, and the next request is answered at once.
# Exit status: 0 when all pass.
set -uo pipefail

ROOT=$(git rev-parse --show-toplevel)
REALMODEL=$ROOT/../shared/tools/realmodel
PORT=${HEARTH_REAL_PORT:-18080}
MODEL=qwen2.5-coder:0.5b # the alias start.sh gives qwen05
MAX_ITERATIONS=8
cd "$ROOT"

now_ms() { echo $(($(date +%s%N) / 1000000)); }
# Prefix each line with the milliseconds since $1.
stamp() { while IFS= read -r line; do echo "$(($(now_ms) - $1)) $line"; done; }
# The JSON events of a stamped log, one per line.
events_of() { cut -d' ' -f2- "$1"; }
# The stamp of the first event of type $2 in log $1.
first_at() { grep -m1 "\"type\":\"$2\"" "$1" | cut -d' ' -f1; }

FAILED=0
pass() { echo "PASS  $*"; }
fail() { echo "FAIL  $*"; FAILED=$((FAILED + 1)); }

if pgrep -x rustc >/dev/null || pgrep -x cargo >/dev/null; then
  echo "note: a cargo build is running; CPU contention will distort the timings" >&2
fi

echo "== building the CLI"
cargo build -p hearth-cli --quiet || { echo "FAIL  the CLI does not build"; exit 1; }
TARGET=$(cargo metadata --format-version 1 --no-deps | jq -r .target_directory)
BIN=$TARGET/debug/hearth

TMP=$(mktemp -d)
export HEARTH_DB=$TMP/hearth.sqlite # never the user's own database
unset HEARTH_API_KEY
cleanup() {
  [ -n "${STOP_PID:-}" ] && kill "$STOP_PID" 2>/dev/null
  "$REALMODEL/stop.sh" -p "$PORT" >/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== starting llama-server (model qwen05, 1 thread) on port $PORT"
t0=$(now_ms)
URL=$("$REALMODEL/start.sh" -m qwen05 -p "$PORT" -t 1) || { echo "FAIL  llama-server did not start"; exit 1; }
echo "   ready in $(($(now_ms) - t0)) ms at $URL"
BASE=$URL/v1
hearth() { "$BIN" chat --backend openai --url "$BASE" --model "$MODEL" "$@"; }

echo "== 1. a plain answer streams"
t0=$(now_ms)
hearth --no-tools --json "Write two short sentences about the sea." | stamp "$t0" >"$TMP/plain.log"
rc=${PIPESTATUS[0]}
deltas=$(grep -c '"type":"text_delta"' "$TMP/plain.log")
first=$(first_at "$TMP/plain.log" text_delta)
end=$(first_at "$TMP/plain.log" stream_end)
answer=$(events_of "$TMP/plain.log" | jq -rj 'select(.type == "text_delta") | .delta')
speed=$(events_of "$TMP/plain.log" | jq -r 'select(.type == "usage") | "\(.usage.completion_tokens) tokens, \(.usage.tokens_per_second // 0 | floor) tok/s, prompt \(.usage.prompt_tokens) tokens in \(.usage.prompt_eval_ms // 0 | floor) ms"')
if [ "$rc" = 0 ] && [ "$deltas" -ge 3 ] && [ -n "$end" ] && [ "$end" -gt "$first" ]; then
  pass "plain answer: $deltas text deltas, first at ${first} ms, end at ${end} ms ($speed)"
else
  fail "plain answer: exit $rc, $deltas text deltas, first at ${first:-never}, end at ${end:-never}"
fi
echo "      \"$answer\""

echo "== 2+3. a tool call is made and executed; the runaway loop is ended (repeat guard or cap)"
# A profile that offers the calculator and plans nothing (the seeded "Chat"
# profile offers no tools; "Agent" adds a planning call).
"$BIN" profiles set Tools --model "$MODEL" --tools calculator --planning off >/dev/null \
  || echo "note: could not create the Tools profile" >&2
t0=$(now_ms)
hearth --profile Tools --json --max-iterations "$MAX_ITERATIONS" \
  "Use the calculator tool to compute 1234*5678." | stamp "$t0" >"$TMP/tool.log"
rc=${PIPESTATUS[0]}
calls=$(events_of "$TMP/tool.log" | jq -c 'select(.type == "tool_started") | {name, arguments}')
ran=$(events_of "$TMP/tool.log" | jq -r 'select(.type == "tool_event") | "\(.name) \(.outcome) \(.output)"')
echo "$calls" | sed 's/^/      call: /'
echo "$ran" | sed 's/^/      result: /'
if echo "$ran" | grep -q '^calculator ok 7006652$'; then
  pass "tool call: calculator executed, result 7006652 (first result at $(first_at "$TMP/tool.log" tool_event) ms)"
else
  fail "tool call: no calculator call returned 7006652"
fi
last=$(events_of "$TMP/tool.log" | tail -1)
code=$(echo "$last" | jq -r '.error.code // empty')
message=$(echo "$last" | jq -r '.error.message // empty')
n_calls=$(echo "$calls" | grep -c . || true)
type=$(echo "$last" | jq -r '.type // empty')
if [ "$rc" = 1 ] && [ "$code" = repeated_tool_calls ]; then
  pass "runaway loop: $n_calls tool calls, ended by the repeat guard after $(first_at "$TMP/tool.log" error) ms, exit 1: $message"
elif [ "$rc" = 1 ] && [ "$code" = max_iterations ]; then
  pass "runaway loop: $n_calls tool calls, ended by the iteration cap after $(first_at "$TMP/tool.log" error) ms, exit 1: $message"
elif [ "$rc" = 0 ] && [ "$type" = stream_end ] && grep -q '"output":"Not run: you already' "$TMP/tool.log"; then
  pass "runaway loop: $n_calls tool calls; after the repeat guard's reflect prompt the model changed course and answered"
else
  fail "runaway loop: exit $rc, last event: $last"
fi

echo "== 4. Stop ends the stream; the next request is answered at once"
t0=$(now_ms)
# The binary itself in the background (not the shell function), so SIGINT
# reaches it.
"$BIN" chat --backend openai --url "$BASE" --model "$MODEL" --no-tools --json \
  "Write a long story, at least 600 words, about a dragon who learns to bake bread." \
  >"$TMP/stop.raw" &
STOP_PID=$!
first=""
for _ in $(seq 1 6000); do # up to 120 s
  grep -q '"type":"text_delta"' "$TMP/stop.raw" 2>/dev/null && { first=$(($(now_ms) - t0)); break; }
  kill -0 "$STOP_PID" 2>/dev/null || break
  sleep 0.02
done
t_int=$(now_ms)
kill -INT "$STOP_PID" 2>/dev/null
wait "$STOP_PID"
rc=$?
STOP_PID=
t_exit=$(($(now_ms) - t_int))
stopped=$(tail -1 "$TMP/stop.raw" | jq -r 'select(.type == "stream_stopped") | .partial_text | length')
# Is the server still generating? (-np 1: one slot; --slots shows it.)
idle_after=""
for _ in $(seq 1 250); do # up to 5 s
  if curl -sf "$URL/slots" | jq -e 'all(.[]; .is_processing == false)' >/dev/null 2>&1; then
    idle_after=$(($(now_ms) - t_int))
    break
  fi
  sleep 0.02
done
t0=$(now_ms)
hearth --no-tools --json "Say OK." | stamp "$t0" >"$TMP/next.log"
rc2=${PIPESTATUS[0]}
next_first=$(first_at "$TMP/next.log" text_delta)
next_end=$(first_at "$TMP/next.log" stream_end)
if [ -n "$first" ] && [ "$rc" = 130 ] && [ -n "$stopped" ] && [ "$t_exit" -lt 1000 ] \
  && [ "$rc2" = 0 ] && [ -n "$next_first" ] && [ "$next_first" -lt 5000 ]; then
  pass "stop: first text at ${first} ms, SIGINT → exit 130 in ${t_exit} ms with $stopped chars kept; server idle ${idle_after:-?} ms after the stop; next request: first text at ${next_first} ms, done at ${next_end} ms"
else
  fail "stop: first text at ${first:-never} ms, exit $rc in ${t_exit} ms, stream_stopped: ${stopped:-no}; server idle after ${idle_after:-never}; next: exit $rc2, first text at ${next_first:-never} ms"
fi

echo "== server log (last lines)"
tail -4 "${REALMODEL_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/hearth-realmodel}/run/server-$PORT.log" | sed 's/^/      /'
if [ "$FAILED" = 0 ]; then
  echo "test-real: all checks passed"
else
  echo "test-real: $FAILED check(s) failed"
  exit 1
fi
