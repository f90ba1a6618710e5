// The shell's voice runtime, played by the mock. `setup`: 'none' (no
// speech server: voice_start fails with the shell's words), 'no-device'
// (the session starts, then the server cannot listen), or 'ok'. A test says
// things with `say(text)`: partials grow word by word, then the final.
// `holdStart` keeps a start at 'starting' and `holdAt` keeps `say` at that
// partial until the test clears them, so it reads either with nothing to
// race.
// Stop finishes the utterance going on (`pending`) before turning off.
import type { VoiceEvent, VoiceSource, VoiceView } from '../bindings';

type Send = (e: VoiceEvent) => void;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class MockVoice {
  setup: 'ok' | 'none' | 'no-device' = 'ok';
  /** Said when Stop comes: what was being said as it was stopped. */
  pending = '';
  stepMs = 30;
  holdStart = false;
  holdAt: string | null = null;
  /** A stop the shell had to end past its bound: no last events come. */
  silentStop = false;
  #send: Send | null = null;
  #source: VoiceSource | null = null;

  start(source: VoiceSource, send: Send): void {
    if (this.setup === 'none') {
      throw { code: 'invalid_input', recovery: 'none', message: 'No speech-to-text server is set up. Run `voice/setup.sh` from Hearth\'s source.', details: null };
    }
    this.#send?.({ type: 'voice_state', state: 'off', source: null, detail: null });
    this.#send = send;
    this.#source = source;
    send({ type: 'voice_state', state: 'starting', source, detail: null });
    void (async () => {
      await sleep(this.stepMs);
      while (this.holdStart) await sleep(20);
      if (this.#send !== send) return;
      if (this.setup === 'no-device') {
        this.#send = null;
        send({ type: 'voice_state', state: 'error', source, detail: 'the speech server cannot listen: no microphone: arecord exited (audio open error: No such device)' });
        return;
      }
      send({ type: 'voice_state', state: 'listening', source, detail: null });
    })();
  }

  /** Say `text`: a partial for each word so far, then the final. */
  async say(text: string): Promise<void> {
    const send = this.#send;
    if (!send) throw new Error('nothing listens');
    const words = text.split(' ');
    for (let i = 1; i < words.length; i++) {
      const partial = words.slice(0, i).join(' ');
      send({ type: 'voice_partial', text: partial });
      await sleep(this.stepMs);
      while (this.holdAt === partial) await sleep(20);
    }
    send({ type: 'voice_final', text, latency_ms: 400 });
  }

  /** As if a page before a reload had started it: listening, its events going nowhere. */
  pretendListening(): void {
    this.#send = () => {};
    this.#source = 'microphone';
  }

  /** As the shell's: answers once the stop is over (its last events sent). */
  async stop(): Promise<boolean> {
    const send = this.#send;
    if (!send) return false;
    this.#send = null;
    const source = this.#source;
    if (this.silentStop) return true;
    send({ type: 'voice_state', state: 'stopping', source, detail: null });
    await new Promise((r) => setTimeout(r, this.stepMs));
    if (this.pending) send({ type: 'voice_final', text: this.pending, latency_ms: 300 });
    this.pending = '';
    send({ type: 'voice_state', state: 'off', source: null, detail: null });
    return true;
  }

  status(): VoiceView {
    return {
      configured: this.setup !== 'none',
      setup: 'Run `voice/setup.sh` from Hearth\'s source.',
      state: this.#send ? 'listening' : 'off',
      source: this.#source,
      detail: null,
    };
  }
}
