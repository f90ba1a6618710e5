// The context meter of the open session. It follows context_usage (the
// prompt against the window in effect, sent before each model call); a
// core that does not send it leaves run_started's window and the usage
// counts. Each session's last measure is kept, so the meter and its
// warning come back with the session. It is the one record of a run's
// context: the turn (lib/turn.ts) keeps none of its own.
import type { AgentEvent } from '../ipc';

/** The prompt's size against the window before a model call (`context_usage`). */
export interface ContextUse {
  tokens: number;
  window: number;
  warning: boolean;
}

export class ContextMeter {
  used = $state(0);
  window = $state(0);
  /** The core's own "nearly full" (≥ 80 % of the window) from the last context_usage. */
  warning = $state(false);
  #known = new Map<string, ContextUse>();

  /** The meter of `sessionId`, as last measured (empty when never). */
  show(sessionId: string): void {
    const known = this.#known.get(sessionId);
    this.used = known?.tokens ?? 0;
    this.window = known?.window ?? 0;
    this.warning = known?.warning ?? false;
  }

  /** What `events` (of the session shown) say of its context. */
  note(events: AgentEvent[]): void {
    for (const ev of events) {
      if (ev.is_subagent) continue;
      const measured = this.#known.has(ev.session_id);
      if (ev.type === 'context_usage') {
        this.#known.set(ev.session_id, { tokens: ev.tokens, window: ev.window, warning: ev.warning });
        this.used = ev.tokens;
        this.window = ev.window;
        this.warning = ev.warning;
      }
      if (measured) continue;
      if (ev.type === 'run_started') this.window = ev.context_window;
      if (ev.type === 'usage') this.used = (ev.usage.prompt_tokens ?? 0) + (ev.usage.completion_tokens ?? 0);
    }
  }
}
