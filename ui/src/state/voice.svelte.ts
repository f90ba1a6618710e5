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
    try {
      await ipc.voiceStart(source, (e) => this.on(e));
    } catch (e) {
      this.state = 'off';
      this.source = null;
      this.problem = ipc.errorInfo(e).message;
    }
  }

  async stop(): Promise<void> {
    if (!this.active || this.state === 'stopping') return;
    this.state = 'stopping';
    try {
      await ipc.voiceStop();
    } catch (e) {
      this.problem = ipc.errorInfo(e).message;
    }
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
  if (chat.running) void chat.queue(text);
  else void chat.send(text);
}

export const voice = new Voice();
