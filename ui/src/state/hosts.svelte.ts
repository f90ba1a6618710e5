// The hosts beside the default Ollama and the models each has, as the
// palette and `/model` offer them (user pass 2026-12, defect 32: only the
// default server's models were offered). Read when the palette opens or a
// `/model` is typed, not polled: asking means reaching every host.
import * as ipc from '../ipc';
import type { HostView } from '../ipc';

/** How long a reading is used before the next `refresh` asks again. */
const FRESH_MS = 10_000;

class HostsState {
  list = $state.raw<HostView[]>([]);
  #read = 0;
  #asking: Promise<void> | null = null;

  /** Other reachable hosts' chat models, as `[host, model]`. */
  others = $derived(this.list.filter((h) => h.name !== 'ollama' && h.reachable).flatMap((h) => h.models.map((m) => [h.name, m] as const)));

  /** Reads the hosts again unless a reading is recent (or one is under way). */
  refresh(): Promise<void> {
    if (this.#asking) return this.#asking;
    if (Date.now() - this.#read < FRESH_MS) return Promise.resolve();
    this.#asking = ipc.listHosts().then(
      (v) => {
        this.list = v;
        this.#read = Date.now();
      },
      () => {},
    ).finally(() => (this.#asking = null));
    return this.#asking;
  }
}

export const hosts = new HostsState();
