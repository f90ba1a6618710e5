#!/usr/bin/env python3
"""Read-aloud latency (issue 46): from an answer's first sentence reaching
Hearth's text-to-speech server (`tts_speak`) to its first sound, as the
server measures it (`latency_ms` of the `started` event: the synthesis).

The real server (voice/hearth_tts.py) runs over MCP's stdio transport,
writing to a throwaway WAV file at the speed it plays; each first sentence
is spoken after the last one finished, so none waits behind another. The
first call loads nothing more than the others (the voice loads at start).

    bench/voice/read_aloud.py [--python VENV_PYTHON] [--engine piper|espeak]

--python is the voice servers' environment (default: the test tools'
~/.cache/hearth-test-tools/voice/venv, which scripts/setup.sh --test makes).
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIRST_SENTENCES = [
    "The capital of France is Paris.",
    "Sure, here is a short poem about the sea.",
    "A spider has eight legs.",
    "Seven times eight is fifty-six.",
    "Good question: the answer depends on the version you use.",
    "Yes.",
    "Here are three primary colours: red, yellow and blue.",
    "The error means the file was not found.",
]


async def measure(python: str, engine: str, rounds: int) -> list[int]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    out = tempfile.NamedTemporaryFile(suffix=".wav", delete=False).name
    params = StdioServerParameters(
        command=python,
        args=[os.path.join(ROOT, "voice/hearth_tts.py"), "--engine", engine, "--output", out],
    )
    latencies = []
    try:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                cursor = 0
                for _ in range(rounds):
                    for sentence in FIRST_SENTENCES:
                        answer = await session.call_tool("tts_speak", {"text": sentence})
                        uid = json.loads(answer.content[0].text)["id"]
                        while True:
                            status = json.loads(
                                (await session.call_tool("tts_status", {"cursor": cursor})).content[0].text
                            )
                            cursor = status["cursor"]
                            for e in status["events"]:
                                if e["id"] == uid and e["kind"] == "started":
                                    latencies.append(e["latency_ms"])
                            if status["state"] == "idle":
                                break
                            await asyncio.sleep(0.05)
    finally:
        os.unlink(out)
    return latencies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.path.expanduser("~/.cache/hearth-test-tools/voice/venv/bin/python")
    ap.add_argument("--python", default=default)
    ap.add_argument("--engine", choices=["piper", "espeak"], default="piper")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    if sys.executable != args.python and os.environ.get("HEARTH_BENCH_REEXEC") != "1":
        # The MCP client library lives in the voice environment.
        os.environ["HEARTH_BENCH_REEXEC"] = "1"
        os.execv(args.python, [args.python, *sys.argv])
    lat = asyncio.run(measure(args.python, args.engine, args.rounds))
    lat_sorted = sorted(lat)
    p90 = lat_sorted[min(len(lat_sorted) - 1, int(0.9 * len(lat_sorted)))]
    print(f"| read aloud ({args.engine}) | first sentence to first sound | n={len(lat)} | "
          f"median {statistics.median(lat):.0f} ms | p90 {p90} ms | max {max(lat)} ms |")


if __name__ == "__main__":
    main()
