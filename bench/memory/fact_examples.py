#!/usr/bin/env python3
"""Writes crates/core/src/workers/fact_examples.tsv: the sentences memory
picks (`hearth-core`'s `statements` example) from every development set of
this folder, each labelled 1 when it names one of its conversation's
expected facts (quality.py's `names`) and 0 otherwise. Memory's vote
(`workers/fact_vote.rs`) compares a new sentence with these.

The newest held-out set is never read: pass the sets to use. After a
held-out set has been scored once it is development data and may be added.

    cargo build -p hearth-core --example statements
    bench/memory/fact_examples.py --statements "$CARGO_TARGET_DIR/debug/examples/statements" \
        conversations.json dev.json heldout.json heldout-2.json heldout-3.json heldout-4.json heldout-5.json
"""

import argparse
import json
import os
import subprocess

from quality import names

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "crates", "core", "src", "workers", "fact_examples.tsv")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--statements", required=True, help="the built `statements` example")
    ap.add_argument("sets", nargs="+")
    args = ap.parse_args()
    lines = []
    for name in args.sets:
        convs = json.load(open(os.path.join(HERE, name), encoding="utf-8"))["conversations"]
        messages = [c["message"] for c in convs]
        picked = json.loads(
            subprocess.run([args.statements], input=json.dumps(messages), capture_output=True,
                           text=True, check=True).stdout
        )
        for conv, sentences in zip(convs, picked):
            for s in sentences:
                label = int(any(names(s, words) for words in conv.get("facts", [])))
                # One line each: a tab or newline inside would split it.
                lines.append(f"{label}\t{' '.join(s.split())}")
    seen = set()
    unique = [l for l in lines if not (l in seen or seen.add(l))]
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("# Memory's labelled examples (workers/fact_vote.rs), written by\n")
        f.write("# bench/memory/fact_examples.py from: " + " ".join(args.sets) + "\n")
        f.write("# 1: the sentence states a durable fact about the user; 0: it does not.\n")
        f.write("\n".join(unique) + "\n")
    print(f"{len(unique)} examples, {sum(l.startswith('1') for l in unique)} facts -> {OUT}")


if __name__ == "__main__":
    main()
