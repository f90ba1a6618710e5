// What the composer holds and has not sent, kept in the store (the
// `unsent` table) a moment after typing stops, so a restart finds it; sent
// or emptied, it is forgotten there too. Composer.svelte calls `keep` from
// an effect on the session and its text.
import * as ipc from '../ipc';

class UnsentState {
  #timer: ReturnType<typeof setTimeout> | null = null;
  #pending: (() => void) | null = null;
  /** Whether the composer's text is in the store yet ('saving' until the last change is written). */
  state = $state<'kept' | 'saving'>('kept');

  /**
   * Write `text` as session `sessionId`'s unsent text 400 ms from now. The
   * returned cleanup runs on the next change: a newer text of the same
   * session replaces this one; when `current()` is another session by then
   * (a switch, an unmount), this one is written at once.
   */
  keep(sessionId: string, text: string, current: () => string | null): () => void {
    const save = () => {
      this.#pending = null;
      ipc
        .saveUnsent(sessionId, text)
        .then(() => {
          if (this.#pending === null) this.state = 'kept';
        })
        .catch((e: unknown) => console.warn('keeping the unsent text failed', e));
    };
    this.#pending = save;
    this.state = 'saving';
    this.#timer = setTimeout(save, 400);
    return () => {
      if (this.#timer) clearTimeout(this.#timer);
      if (this.#pending === save && current() !== sessionId) save();
    };
  }
}

export const unsent = new UnsentState();
