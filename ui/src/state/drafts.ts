// What was typed and attached, and not sent, in each session the person
// left (kept while the app runs; the store keeps the text across a
// restart). The session on screen keeps its own in the composer.
import type { AttachmentView } from '../ipc';

export interface Draft {
  text: string;
  files: AttachmentView[];
}

export class Drafts {
  #text = new Map<string, string>();
  #files = new Map<string, AttachmentView[]>();

  /**
   * Leaving `from` with `left` in its composer for `to`: what `to`'s
   * composer shows (its draft of this run, else `stored`, the text the
   * store kept from before a restart).
   */
  swap(from: string | undefined, left: Draft, to: string, stored: string | null): Draft {
    if (from) {
      this.#text.set(from, left.text);
      this.#files.set(from, left.files);
    }
    const shown = { text: this.#text.get(to) ?? stored ?? '', files: this.#files.get(to) ?? [] };
    this.#text.delete(to);
    this.#files.delete(to);
    return shown;
  }

  /** A file attached in `sessionId` after the person left it. */
  attach(sessionId: string, file: AttachmentView): void {
    this.#files.set(sessionId, [...(this.#files.get(sessionId) ?? []), file]);
  }

  /** A refused message, back into the draft of `sessionId` (not on screen): `merge` and `withFiles` put it before what is there. The text it makes. */
  giveBack(sessionId: string, merge: (typed: string) => string, withFiles: (files: AttachmentView[]) => AttachmentView[]): string {
    const text = merge(this.#text.get(sessionId) ?? '');
    this.#text.set(sessionId, text);
    this.#files.set(sessionId, withFiles(this.#files.get(sessionId) ?? []));
    return text;
  }
}
