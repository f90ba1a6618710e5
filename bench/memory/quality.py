#!/usr/bin/env python3
"""Memory quality on a real model (issue 18): each conversation of
conversations.json is sent once through the real `hearth` CLI, in a
database of its own, against a real OpenAI-compatible server (llama.cpp in
`make test-real`); what memory then holds is scored.

- precision: stored facts that are true and about the user (they name one
  of the conversation's expected facts and no forbidden word) / all stored;
- recall: expected facts that some stored fact names / all expected.

Greedy answers and memory requests (temperature 0), one server thread and a
fixed server seed keep a run repeatable. Prints a Markdown report; with --min-precision and
--require-planted-empty it exits 1 when the run falls short. Any `hearth`
binary works (an older one measures "before").

    bench/memory/quality.py --hearth target/debug/hearth --url http://127.0.0.1:18080/v1 \
        --model qwen2.5-coder:0.5b [--only ID,…] [--json results.json]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STORED = re.compile(r"^#(\d+)\s{2}(.*?)\s{2}\(")


def names(fact, words):
    """Whether `fact` names one of `words` (case-insensitive): a word of five
    letters or more as the start of a word ("peanut" in "peanuts", "guitar"
    in "guitarist", "postgres" in "PostgreSQL"), a shorter one as a whole
    word ("go" is not "good")."""
    def pattern(w):
        return r"\b" + re.escape(w) + ("" if len(w) >= 5 else r"\b")
    return any(re.search(pattern(w), fact, re.IGNORECASE) for w in words)


def example_count():
    """How many labelled examples memory's vote embeds (fact_examples.tsv)."""
    path = os.path.join(HERE, "..", "..", "crates", "core", "src", "workers", "fact_examples.tsv")
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line[:2] in ("0\t", "1\t"))


def run(cmd, timeout):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def converse(args, conv, tmp):
    """Sends the conversation's message; the facts memory holds after it."""
    db = os.path.join(tmp, f"{conv['id']}.sqlite")
    base = [args.hearth]
    setup = run(
        base + ["profiles", "set", "--db", db, "Chat", "--model", args.model, "--temperature", "0",
                "--max-output-tokens", str(args.max_tokens)],
        args.timeout,
    )
    if setup.returncode != 0:
        raise RuntimeError(f"profiles set failed: {setup.stderr.strip()}")
    if args.embed_model:
        # Memory's vote (crates/core/src/workers/fact_vote.rs) uses the
        # embedding model chosen for knowledge folders.
        chosen = run(base + ["knowledge", "--db", db, "model", args.embed_model], args.timeout)
        if chosen.returncode != 0:
            raise RuntimeError(f"knowledge model failed: {chosen.stderr.strip()}")
    chat = run(
        base + ["chat", "--db", db, "--backend", "openai", "--url", args.url, "--model", args.model,
                # After "--": a message may start with a dash ("---------- Forwarded
                # message ----------"), which the CLI would read as an option.
                "--", conv["message"]],
        args.timeout,
    )
    if chat.returncode != 0:
        raise RuntimeError(f"chat failed ({chat.returncode}): {chat.stderr.strip()[-400:]}")
    listed = run(base + ["memory", "--db", db], args.timeout)
    facts = []
    for line in listed.stdout.splitlines():
        m = STORED.match(line)
        if m:
            facts.append(m.group(2))
    return facts, chat.stdout.strip()


def score(conv, stored):
    expected = conv["facts"]
    forbid = conv.get("forbid", [])
    verdicts = []
    for fact in stored:
        true = any(names(fact, e) for e in expected) and not names(fact, forbid)
        verdicts.append((fact, true))
    found = sum(1 for e in expected if any(names(f, e) for f in stored))
    return verdicts, found


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hearth", required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--conversations", default="conversations.json",
                   help="comma-separated files (relative to bench/memory/): conversations.json (the "
                        "first set, tuned on), dev.json, heldout.json, heldout-2.json, heldout-3.json (each scored "
                        "once before anything was tuned on it: README.md says which are still unread), "
                        "other-languages.json")
    p.add_argument("--only", help="comma-separated ids")
    p.add_argument("--embed-url", help="an embedding server (llama.cpp --embedding): served with the chat "
                   "server at one address, as one Ollama host serves both")
    p.add_argument("--embed-model", help="the embedding model memory's vote uses (without it: no vote)")
    p.add_argument("--require-vote", action="store_true",
                   help="fail unless the vote ran: the embedding server answered and the examples' "
                        "vectors were kept beside the databases")
    p.add_argument("--max-tokens", type=int, default=160, help="answer length cap")
    p.add_argument("--timeout", type=int, default=300, help="seconds one command may take")
    p.add_argument("--json", help="write the per-conversation results here")
    p.add_argument("--min-precision", type=float)
    p.add_argument("--require-planted-empty", action="store_true",
                   help="fail when a conversation with `forbid` words stores anything")
    p.add_argument("--min-recall", type=float,
                   help="fail when fewer of the expected facts are found")
    p.add_argument("--min-stored", type=int, default=0,
                   help="fail when fewer facts are stored (a broken memory worker stores none)")
    args = p.parse_args()
    proxied = {}
    if args.embed_url:
        import one_host
        args.url, _stop, proxied = one_host.start(args.url, args.embed_url)

    convs = []
    for path in args.conversations.split(","):
        with open(path if os.path.isabs(path) else os.path.join(HERE, path), encoding="utf-8") as f:
            convs += json.load(f)["conversations"]
    if args.only:
        keep = set(args.only.split(","))
        convs = [c for c in convs if c["id"] in keep]

    rows, results = [], []
    stored_n = true_n = expected_n = found_n = 0
    planted_stored = []
    by_kind = {}
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        env_db = os.path.join(tmp, "unused.sqlite")
        os.environ["HEARTH_DB"] = env_db  # never the user's own database
        os.environ.pop("HEARTH_SKILLS_DIR", None)
        for conv in convs:
            try:
                stored, _ = converse(args, conv, tmp)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"FAIL  {conv['id']}: {e}", file=sys.stderr)
                return 2
            verdicts, found = score(conv, stored)
            stored_n += len(stored)
            true_n += sum(1 for _, t in verdicts if t)
            # Another language: stored correctly or not at all (issue 48),
            # so it counts for precision only.
            counted = conv.get("kind") != "other-language"
            expected_n += len(conv["facts"]) if counted else 0
            found_n += found if counted else 0
            k = by_kind.setdefault(conv.get("kind", "-"), [0, 0, 0, 0, 0])
            k[0] += 1
            k[1] += len(stored)
            k[2] += sum(1 for _, t in verdicts if t)
            k[3] += len(conv["facts"])
            k[4] += found
            if conv.get("forbid") and stored:
                planted_stored.append(conv["id"])
            shown = "; ".join(("" if t else "✗ ") + f for f, t in verdicts) or "—"
            rows.append(f"| {conv['id']} | {found}/{len(conv['facts'])} | {shown} |")
            results.append({"id": conv["id"], "kind": conv.get("kind"), "stored": stored, "true": [t for _, t in verdicts],
                            "expected": len(conv["facts"]), "found": found})
            print(f"{conv['id']}: {len(stored)} stored, {found}/{len(conv['facts'])} found", file=sys.stderr)
        # The vote's examples, embedded once and kept beside the databases.
        vote_files = [f for f in os.listdir(tmp) if f.startswith("memory-examples-")]
    precision = true_n / stored_n if stored_n else 1.0
    recall = found_n / expected_n if expected_n else 1.0
    print(f"Memory quality: {len(convs)} conversations, {args.model}, {time.monotonic() - started:.0f} s\n")
    print("| conversation | facts found | stored (✗ = not a true fact about the user) |")
    print("|---|---|---|")
    print("\n".join(rows))
    if len(by_kind) > 1:
        print("\n| kind | conversations | stored | true | expected | found |")
        print("|---|---|---|---|---|---|")
        for kind, (n, st, tr, ex, fo) in sorted(by_kind.items()):
            print(f"| {kind} | {n} | {st} | {tr} | {ex} | {fo} |")
    print(f"\nstored {stored_n}, true {true_n}: precision {precision:.2f}; "
          f"expected {expected_n}, found {found_n}: recall {recall:.2f}; "
          f"forbidden words (planted, someone else's, supposed) stored in: {', '.join(planted_stored) or 'none'}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"precision": precision, "recall": recall, "stored": stored_n, "true": true_n,
                       "expected": expected_n, "found": found_n, "conversations": results}, f, indent=1)
    short = []
    if args.min_precision is not None and precision < args.min_precision:
        short.append(f"precision {precision:.2f} < {args.min_precision}")
    if args.min_recall is not None and recall < args.min_recall:
        short.append(f"recall {recall:.2f} < {args.min_recall}")
    if stored_n < args.min_stored:
        short.append(f"{stored_n} facts stored, fewer than {args.min_stored}")
    # The vote ran when the examples' vectors were kept and some sentence
    # was embedded beyond them (their batches come first).
    batches = -(-example_count() // 64)
    if args.require_vote and not (args.embed_url and proxied["embed"] > batches and vote_files):
        short.append("memory's vote did not run (embedding requests answered: "
                     f"{proxied['embed'] if args.embed_url else 'no --embed-url'}, the examples' "
                     f"take {batches}; their vectors kept: {len(vote_files) if args.embed_url else 0})")
    if args.require_planted_empty and planted_stored:
        short.append(f"a conversation with forbidden words stored facts ({', '.join(planted_stored)})")
    if short:
        print("FAIL  " + "; ".join(short), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
