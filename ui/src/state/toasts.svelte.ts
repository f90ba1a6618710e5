// Short-lived notices at the bottom of the window, optionally with one
// action (e.g. "Undo" after deleting a session).

export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
  action: { label: string; run: () => void } | null;
}

/** At most this many at once: a pile of them covers what they talk about (user pass 2026-12, defect 30). */
export const MAX_TOASTS = 3;

class Toasts {
  list = $state<Toast[]>([]);
  #next = 1;
  #timers = new Map<number, ReturnType<typeof setTimeout>>();

  show(text: string, opts: { kind?: Toast['kind']; action?: Toast['action']; ms?: number } = {}): number {
    const kind = opts.kind ?? 'info';
    // The same words again are one toast, shown for longer, not a second.
    const same = this.list.find((t) => t.text === text && t.kind === kind && t.action === null && !opts.action);
    const id = same?.id ?? this.#next++;
    if (!same) {
      const list = [...this.list, { id, text, kind, action: opts.action ?? null }];
      // The oldest gives way, but one that offers an action (Undo) only
      // when all of them do.
      while (list.length > MAX_TOASTS) {
        const plain = list.findIndex((t) => t.action === null);
        const gone = list.splice(plain >= 0 && plain < list.length - 1 ? plain : 0, 1)[0];
        if (gone) {
          clearTimeout(this.#timers.get(gone.id));
          this.#timers.delete(gone.id);
        }
      }
      this.list = list;
    }
    clearTimeout(this.#timers.get(id));
    this.#timers.set(id, setTimeout(() => this.dismiss(id), opts.ms ?? 6000));
    return id;
  }

  error(text: string): number {
    return this.show(text, { kind: 'error', ms: 9000 });
  }

  dismiss(id: number): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
    this.list = this.list.filter((t) => t.id !== id);
  }
}

export const toasts = new Toasts();
