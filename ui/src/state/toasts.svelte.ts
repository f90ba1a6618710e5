// Short-lived notices at the bottom of the window, optionally with one
// action (e.g. "Undo" after deleting a session).

export interface Toast {
  id: number;
  text: string;
  kind: 'info' | 'error';
  action: { label: string; run: () => void } | null;
}

class Toasts {
  list = $state<Toast[]>([]);
  #next = 1;

  show(text: string, opts: { kind?: Toast['kind']; action?: Toast['action']; ms?: number } = {}): number {
    const id = this.#next++;
    this.list.push({ id, text, kind: opts.kind ?? 'info', action: opts.action ?? null });
    setTimeout(() => this.dismiss(id), opts.ms ?? 6000);
    return id;
  }

  error(text: string): number {
    return this.show(text, { kind: 'error', ms: 9000 });
  }

  dismiss(id: number): void {
    this.list = this.list.filter((t) => t.id !== id);
  }
}

export const toasts = new Toasts();
