// The shell's pull queue, played by the mock: one pull at a time, steps
// every `stepMs`, Cancel, a model the registry lacks failing with Ollama's
// words. `held` stops the running pull at 40 % until it is cleared, so a
// test can close the panel or reload mid-pull with nothing to race.
import type { ModelView, PullView } from '../bindings';

const TOTAL = 2_000_000_000;
const STEPS = 5;

export class MockPulls {
  items: PullView[] = [];
  stepMs = 120;
  held = false;
  #timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly installed: (m: ModelView) => void) {}

  start(model: string): boolean {
    if (this.items.some((p) => p.model === model && (p.state === 'queued' || p.state === 'running'))) return false;
    this.items = this.items.filter((p) => p.model !== model);
    this.items.push({ model, state: 'queued', status: 'waiting for the pulls before it', total: null, completed: null, bytes_per_sec: null, seconds_left: null, error: null });
    this.#next();
    return true;
  }

  cancel(model: string): boolean {
    const p = this.items.find((x) => x.model === model && (x.state === 'queued' || x.state === 'running'));
    if (!p) return false;
    if (p.state === 'running' && this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    Object.assign(p, { state: 'cancelled', status: 'cancelled', bytes_per_sec: null, seconds_left: null });
    this.#next();
    return true;
  }

  list(): PullView[] {
    return this.items.map((p) => ({ ...p }));
  }

  #next(): void {
    if (this.items.some((p) => p.state === 'running')) return;
    const p = this.items.find((x) => x.state === 'queued');
    if (!p) return;
    Object.assign(p, { state: 'running', status: 'pulling manifest' });
    this.#step(p, 0);
  }

  #step(p: PullView, i: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (p.state !== 'running') return;
      if (p.model.startsWith('no-such')) {
        Object.assign(p, { state: 'failed', error: `there is no model \`${p.model}\` in the Ollama library: check its name and tag (for example qwen3:8b) at ollama.com/library (the server said: pull model manifest: file does not exist)` });
        this.#next();
        return;
      }
      if (this.held && i >= 2) {
        this.#step(p, i);
        return;
      }
      if (i < STEPS) {
        const perStep = TOTAL / STEPS;
        const speed = perStep / (this.stepMs / 1000);
        Object.assign(p, { status: 'downloading', total: TOTAL, completed: perStep * (i + 1), bytes_per_sec: speed, seconds_left: (TOTAL - perStep * (i + 1)) / speed });
        this.#step(p, i + 1);
        return;
      }
      Object.assign(p, { state: 'done', status: 'success', bytes_per_sec: null, seconds_left: null });
      this.installed({ name: p.model, size: TOTAL, family: p.model.split(':')[0] ?? p.model, parameter_size: '3B', quantization: 'Q4_K_M', capabilities: ['completion', 'tools'], context_length: 32768, settings: { num_ctx: 8192, keep_alive_secs: 1800 } });
      this.#next();
    }, this.stepMs);
  }
}
