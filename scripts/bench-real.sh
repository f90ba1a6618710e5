#!/usr/bin/env bash
# The real-engine benchmarks (`make bench-real`), apart from CI's checks:
# CI's real-engine stage (scripts/test-real.sh) runs the smallest input that
# still lets each of its checks fail; the full runs whose figures
# BENCHMARKS.md records are here:
#   1. memory quality on every conversation of bench/memory/ (the first set,
#      the development and held-out halves, other languages), on the 0.5B
#      and the 1.5B model;
#   2. the prompt cache across 30 turns, title and memory workers on,
#      planning off and on;
#   3. voice latency: five spoken sentences through Hearth's speech-to-text
#      server (scripts/setup.sh --test installs it) to the first token;
#   4. knowledge: recall by words, meaning and both on 500 of this machine's
#      manual pages (bench/knowledge/corpus.py), all-MiniLM-L6-v2 on the
#      same llama.cpp in embedding mode, release build; and search at
#      100,000 passages (release build, vectors from hearth-sim).
# Same server as CI's stage (llama.cpp, Qwen2.5-Coder-0.5B, one slot, one
# thread, seed 42), on its own port. Reports go to bench/results/.
# Exit status: 0 when every benchmark ran (and met the goals it is given).
set -uo pipefail

ROOT=$(git rev-parse --show-toplevel)
cd "$ROOT"
REALMODEL=$ROOT/scripts/realmodel
PORT=${HEARTH_BENCH_PORT:-18090}
MODEL=qwen2.5-coder:0.5b
OUT=$ROOT/bench/results
mkdir -p "$OUT"

cargo build --workspace --features tauri/custom-protocol --bin hearth --bin hearth-bench --quiet || exit 1
TARGET=$(cargo metadata --format-version 1 --no-deps | jq -r .target_directory)
BIN=$TARGET/debug/hearth
BENCH=$TARGET/debug/hearth-bench

"$REALMODEL/stop.sh" -p "$PORT" >/dev/null
trap '"$REALMODEL/stop.sh" -p "$PORT" >/dev/null; "$REALMODEL/stop.sh" -p "$((PORT + 1))" >/dev/null' EXIT
URL=$("$REALMODEL/start.sh" -m qwen05 -p "$PORT" -t 1 -c 8192 -- --seed 42) || { echo "llama-server did not start"; exit 1; }
# Memory's vote (crates/core/src/workers/fact_vote.rs) embeds with the
# model chosen for knowledge folders: all-MiniLM-L6-v2 beside the chat
# model, one address for both (quality.py --embed-url).
EURL=$("$REALMODEL/start.sh" -m minilm -p "$((PORT + 1))" -t 1) || { echo "the embedding server did not start"; exit 1; }

FAILED=0
# Memory on every set (issue 48): the first set (tuned on), the development
# half, the held-out sets (each scored once before it was tuned on: BENCHMARKS.md)
# and the messages in other languages (precision only), on the 0.5B model
# here and on the 1.5B model below. Every set but heldout-6.json gave the
# vote its examples (crates/core/src/workers/fact_examples.tsv), so only
# heldout-6.json says how the vote does on sentences it has not seen; it
# was scored once, as BENCHMARKS.md's "Memory's vote" says, and is
# development data since. Not heldout-7.json: unread and unscored, it is run
# once, by hand, to measure the next change to memory (bench/memory/README.md).
MEMORY_SETS="conversations.json dev.json heldout.json heldout-2.json heldout-3.json heldout-4.json heldout-5.json heldout-6.json other-languages.json"
memory() { # $1: label, $2: url, $3: model
  for set in $MEMORY_SETS; do
    echo "== memory quality, $1, $set"
    # Other languages have no sentence the vote reads (the picking is
    # English): nothing to require there.
    require=(--require-vote)
    [ "$set" = other-languages.json ] && require=()
    python3 bench/memory/quality.py --hearth "$BIN" --url "$2/v1" --model "$3" --conversations "$set" \
      --embed-url "$EURL/v1" --embed-model all-minilm:l6-v2 "${require[@]}" --json "$OUT/memory-$1-${set%.json}.json" | tee "$OUT/memory-$1-${set%.json}.md" || FAILED=$((FAILED + 1))
  done
}
memory qwen05 "$URL" "$MODEL"

echo "== the prompt cache across 30 turns"
"$BENCH" --only cache --turns 30 --real "$URL/v1" --real-model "$MODEL" --goal 1.2 | tee "$OUT/cache.md" \
  || FAILED=$((FAILED + 1))

echo "== voice latency"
python3 bench/voice/latency.py --hearth "$BIN" --url "$URL/v1" --backend openai --model "$MODEL" \
  | tee "$OUT/voice.md" || FAILED=$((FAILED + 1))

echo "== read aloud: first sentence to first sound (Piper, then espeak-ng)"
python3 bench/voice/read_aloud.py --rounds 3 | tee "$OUT/read-aloud.md" || FAILED=$((FAILED + 1))
python3 bench/voice/read_aloud.py --engine espeak --rounds 1 | tee -a "$OUT/read-aloud.md" || FAILED=$((FAILED + 1))

echo "== memory quality on the 1.5B model"
"$REALMODEL/stop.sh" -p "$PORT" >/dev/null
URL=$("$REALMODEL/start.sh" -m qwen15 -p "$PORT" -t 1 -c 8192 -- --seed 42) || { echo "llama-server (1.5B) did not start"; exit 1; }
memory qwen15 "$URL" qwen2.5-coder:1.5b

echo "== knowledge: recall on the manual pages, then search at 100,000 passages"
"$REALMODEL/stop.sh" -p "$PORT" >/dev/null
"$REALMODEL/stop.sh" -p "$((PORT + 1))" >/dev/null
KCORPUS=$(mktemp -d)
if python3 bench/knowledge/corpus.py --out "$KCORPUS" --pages 500 \
  && cargo build --release -p hearth-bench --bin hearth-knowledge-bench --quiet \
  && EURL=$("$REALMODEL/start.sh" -m minilm -p "$PORT" -t 2); then
  "$TARGET/release/hearth-knowledge-bench" recall --corpus "$KCORPUS/pages" --queries "$KCORPUS/queries.json" \
    --url "$EURL/v1" --model all-minilm:l6-v2 --json "$OUT/knowledge-recall.json" | tee "$OUT/knowledge-recall.md" \
    || FAILED=$((FAILED + 1))
  "$REALMODEL/stop.sh" -p "$PORT" >/dev/null
  "$TARGET/release/hearth-knowledge-bench" scale --corpus "$KCORPUS/pages" --queries "$KCORPUS/queries.json" \
    --chunks 100000 | tee "$OUT/knowledge-scale.md" || FAILED=$((FAILED + 1))
else
  echo "knowledge: the corpus, the build or the embedding server failed"; FAILED=$((FAILED + 1))
fi
rm -rf "$KCORPUS"

[ "$FAILED" = 0 ] || { echo "bench-real: $FAILED benchmark(s) failed"; exit 1; }
echo "bench-real: done; reports in $OUT"
