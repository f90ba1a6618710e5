// The app's pulls as the shell runs them (queued, one at a time, with a
// Cancel): read every half second while one is queued or running, so the
// progress outlives the panel that started it and shows in the header.
import * as ipc from '../ipc';
import type { PullView } from '../ipc';
import { app } from './app.svelte';
import { toasts } from './toasts.svelte';

const POLL_MS = 500;

class PullsState {
  items = $state.raw<PullView[]>([]);
  #timer: ReturnType<typeof setInterval> | null = null;
  /** Called once when a pull of that model is installed. */
  #onDone = new Map<string, (() => void)[]>();

  /** Queued and running pulls, in order. */
  active = $derived(this.items.filter((p) => p.state === 'queued' || p.state === 'running'));

  of(model: string): PullView | null {
    return this.items.find((p) => p.model === model) ?? null;
  }

  async refresh(): Promise<void> {
    let items: PullView[];
    try {
      items = await ipc.listPulls();
    } catch {
      return;
    }
    const before = new Map(this.items.map((p) => [p.model, p.state]));
    this.items = items;
    let installed = false;
    for (const p of items) {
      const was = before.get(p.model);
      if (p.state === 'done' && was !== undefined && was !== 'done') {
        installed = true;
        toasts.show(`${p.model} is installed`);
        for (const f of this.#onDone.get(p.model) ?? []) f();
        this.#onDone.delete(p.model);
      }
    }
    // The picker, the first-run notices and the seeded profiles read the server's list.
    if (installed) void app.refreshBackend();
    if (this.active.length === 0) this.#stop();
  }

  /** Queues a pull of `model`; `ondone` runs when it is installed. */
  async start(model: string, ondone?: () => void): Promise<void> {
    if (ondone) this.#onDone.set(model, [...(this.#onDone.get(model) ?? []), ondone]);
    try {
      await ipc.startPull(model);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
      return;
    }
    await this.refresh();
    this.#poll();
  }

  async cancel(model: string): Promise<void> {
    this.#onDone.delete(model);
    await ipc.cancelPull(model);
    await this.refresh();
  }

  /** Picks up pulls started before this page loaded (a reload). */
  async load(): Promise<void> {
    await this.refresh();
    if (this.active.length > 0) this.#poll();
  }

  #poll(): void {
    if (this.#timer === null) this.#timer = setInterval(() => void this.refresh(), POLL_MS);
  }

  #stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}

export const pulls = new PullsState();
