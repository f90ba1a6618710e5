// Read aloud (docs/voice.md): which answer is being read, from its
// speaker button. The shell reads it on the text-to-speech server; the
// button shows "stop" until the server says it is quiet (asked every
// half second while it reads), and a failure is said once in a toast.
import * as ipc from '../ipc';
import { toasts } from './toasts.svelte';

const POLL_MS = 500;

class Speaking {
  /** The answer being read (its first message's id), or null. */
  reading = $state<number | null>(null);
  #poll: ReturnType<typeof setTimeout> | null = null;

  /** Read the answer `id` (its text `text`), or stop it if it is the one being read. */
  async toggle(id: number, text: string): Promise<void> {
    if (this.reading === id) {
      await this.stop();
      return;
    }
    try {
      await ipc.speakText(text);
      this.reading = id;
      this.#watch();
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  /** Stop reading aloud (Stop, a new message: the shell stops it too). */
  async stop(): Promise<void> {
    this.reading = null;
    this.#clear();
    try {
      await ipc.stopSpeaking();
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  #clear(): void {
    if (this.#poll !== null) clearTimeout(this.#poll);
    this.#poll = null;
  }

  #watch(): void {
    this.#clear();
    this.#poll = setTimeout(async () => {
      try {
        const s = await ipc.speakingStatus();
        if (s.failure) toasts.error(`Read aloud: ${s.failure}`);
        if (!s.speaking || s.failure) {
          this.reading = null;
          this.#poll = null;
          return;
        }
      } catch {
        this.reading = null;
        this.#poll = null;
        return;
      }
      this.#watch();
    }, POLL_MS);
  }
}

export const speaking = new Speaking();
