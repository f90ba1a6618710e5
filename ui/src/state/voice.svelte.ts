// Voice input (docs/voice.md). The composer's microphone button (or holding
// Ctrl+Shift+Space) starts a speech-to-text session on the MCP server named
// `voice`; what it hears so far shows in the composer, and each whole
// utterance goes where a typed message goes: sent, or queued into the
// answer going on — or, when the user chose so in Settings, into the
// composer to be edited and sent by hand.
import * as ipc from '../ipc';
import type { VoiceEvent, VoiceSource, VoiceState } from '../ipc';
import { app } from './app.svelte';
import { chat } from './chat.svelte';

class Voice {
  state = $state<VoiceState>('off');
  source = $state<VoiceSource | null>(null);
  /** The utterance going on, as heard so far. */
  partial = $state('');
  /** Why it cannot listen (an error, or no server set up), until the next start. */
  problem = $state<string | null>(null);
  /** The start being asked for: a stop waits for it (a quick tap of the
   * hold-to-talk keys must not leave it listening). */
  #starting: Promise<void> | null = null;

  /** Listening, or about to, or finishing: the button stops it. */
  get active(): boolean {
    return this.state === 'starting' || this.state === 'listening' || this.state === 'stopping';
  }

  async toggle(): Promise<void> {
    if (this.active) await this.stop();
    else await this.start();
  }

  async start(source: VoiceSource = 'microphone'): Promise<void> {
    if (this.active) return;
    this.problem = null;
    this.partial = '';
    this.state = 'starting';
    this.source = source;
    const started = ipc.voiceStart(source, (e) => this.on(e)).then(
      () => undefined,
      (e: unknown) => {
        this.state = 'off';
        this.source = null;
        this.problem = ipc.errorInfo(e).message;
      },
    );
    this.#starting = started;
    await started;
    if (this.#starting === started) this.#starting = null;
  }

  async stop(): Promise<void> {
    if (!this.active || this.state === 'stopping') return;
    if (this.#starting) await this.#starting;
    if (!this.active) return;
    this.state = 'stopping';
    try {
      // False: nothing was listening any more (it ended by itself). True:
      // its last events say off, unless the shell had to end it past its
      // bound without them; its status says so then.
      if (!(await ipc.voiceStop())) this.off();
      else if (this.state === 'stopping' && ['off', 'error'].includes((await ipc.voiceStatus()).state)) this.off();
    } catch (e) {
      this.problem = ipc.errorInfo(e).message;
      this.off();
    }
  }

  /**
   * At load: a session left listening by the page before a reload has no
   * one to show what it hears any more, so it is stopped.
   */
  async settle(): Promise<void> {
    try {
      const s = await ipc.voiceStatus();
      if (s.state === 'starting' || s.state === 'listening') await ipc.voiceStop();
    } catch {
      // Nothing to settle: the shell answers the next start.
    }
  }

  private off(): void {
    this.state = 'off';
    this.source = null;
    this.partial = '';
  }

  dismiss(): void {
    this.problem = null;
  }

  private on(e: VoiceEvent): void {
    if (e.type === 'voice_state') {
      this.state = e.state;
      this.source = e.source;
      if (e.state === 'off' || e.state === 'error') this.partial = '';
      if (e.state === 'error') this.problem = e.detail ?? 'Voice stopped.';
    } else if (e.type === 'voice_partial') {
      this.partial = e.text;
    } else {
      this.partial = '';
      deliver(e.text);
    }
  }
}

/** An utterance, where the open session's typed message would go. */
function deliver(text: string): void {
  if (!chat.sessionId || !text.trim()) return;
  if (!app.prefs.voice_send) {
    const typed = chat.draft.trimEnd();
    chat.draft = typed ? `${typed} ${text}` : text;
    return;
  }
  // The files waiting in the composer stay there, for the typed message
  // they were attached to.
  if (chat.run.busy) void chat.run.queue(text);
  else void chat.send(text, []);
}

export const voice = new Voice();
