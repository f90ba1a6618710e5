#!/usr/bin/env python3
"""Voice latency (issue 20): how long after the end of speech the final
utterance is there, and the answer's first token.

Sentences are spoken by espeak-ng into one WAV file, 1.5 s of quiet between
them; the real `hearth voice --file --json` plays it, in real time, through
Hearth's speech-to-text server (voice/, the tiny English Whisper model),
and sends each utterance to the model server given (hearth-sim, or a real
one: llama.cpp with --backend openai). Per utterance:

- to final: `latency_ms` of `voice_final`, from the end of speech (the
  last voiced frame, on the wall clock as the server reports it) to the
  text reaching `hearth`, counted on this machine's clock: the 0.7 s pause
  that ends an utterance, the recognition and the polling;
- to first token: from that same end of speech (the final's arrival minus
  its latency) to the first `text_delta` after it.

    bench/voice/latency.py --hearth target/release/hearth --url http://127.0.0.1:18090/v1 \
        --backend openai --model qwen2.5-coder:0.5b [--stt-python PATH]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SENTENCES = [
    "What is the capital of France?",
    "Name three primary colors.",
    "How many legs does a spider have?",
    "Write one sentence about the sea.",
    "What is seven times eight?",
]


def speak(folder):
    quiet = os.path.join(folder, "quiet.wav")
    subprocess.run(["sox", "-R", "-n", "-r", "22050", "-c", "1", "-b", "16", quiet, "trim", "0", "1.5"], check=True)
    parts = [quiet]
    for i, s in enumerate(SENTENCES):
        p = os.path.join(folder, f"s{i}.wav")
        subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", p, s], check=True)
        parts += [p, quiet]
    out = os.path.join(folder, "said.wav")
    subprocess.run(["sox", "-R", *parts, "-r", "16000", "-c", "1", "-b", "16", out], check=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hearth", default=os.path.join(ROOT, "target/release/hearth"))
    ap.add_argument("--url", required=True)
    ap.add_argument("--backend", default="ollama")
    ap.add_argument("--model")
    tools = os.environ.get("HEARTH_TEST_TOOLS", os.path.expanduser("~/.cache/hearth-test-tools"))
    ap.add_argument("--stt-python", default=os.path.join(tools, "voice/venv/bin/python"))
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        db = os.path.join(folder, "h.sqlite")
        said = speak(folder)
        subprocess.run(
            [args.hearth, "mcp", "add", "--db", db, "voice", "--", args.stt_python,
             os.path.join(ROOT, "voice/hearth_stt.py")],
            check=True, capture_output=True,
        )
        cmd = [args.hearth, "voice", "--db", db, "--url", args.url, "--backend", args.backend,
               "--json", "--file", said]
        if args.model:
            cmd += ["--model", args.model]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        rows, pending = [], None
        for line in proc.stdout:
            now = time.monotonic()
            e = json.loads(line)
            kind = e.get("type")
            if kind == "voice_final":
                pending = {"text": e["text"], "to_final": e["latency_ms"] / 1000,
                           "end": now - e["latency_ms"] / 1000, "to_token": None}
                rows.append(pending)
            elif kind == "text_delta" and pending and pending["to_token"] is None:
                pending["to_token"] = now - pending["end"]
        rc = proc.wait()
        if rc != 0:
            sys.exit(f"hearth voice exited {rc}: {proc.stderr.read()}")

    print("| utterance | heard | end of speech → final (s) | → first token (s) |")
    print("|---|---|---|---|")
    for i, r in enumerate(rows, 1):
        tok = "—" if r["to_token"] is None else f"{r['to_token']:.2f}"
        print(f"| {i} | {r['text']} | {r['to_final']:.2f} | {tok} |")
    finals = [r["to_final"] for r in rows]
    tokens = [r["to_token"] for r in rows if r["to_token"] is not None]
    print(f"\nmedian to final {statistics.median(finals):.2f} s (max {max(finals):.2f}); "
          + (f"median to first token {statistics.median(tokens):.2f} s (max {max(tokens):.2f})"
             if tokens else "no answers"))


if __name__ == "__main__":
    main()
