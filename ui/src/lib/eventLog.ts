// A run's event log in the page (replayed when its session is shown
// again). Consecutive pieces of one stream — answer, reasoning, plan — of
// one scope join into one event, so a long answer's log holds a handful
// of events, not one per token; a replay reads the same. The joined event
// is a new object: the one it replaces may still wait in the frame buffer.
import type { AgentEvent } from '../ipc';

const JOINABLE = new Set(['text_delta', 'thinking_delta', 'plan_delta']);

function sameScope(a: AgentEvent, b: AgentEvent): boolean {
  return (
    a.session_id === b.session_id &&
    a.run_id === b.run_id &&
    a.is_subagent === b.is_subagent &&
    (a.parent_run_id ?? null) === (b.parent_run_id ?? null) &&
    (a.parent_call_id ?? null) === (b.parent_call_id ?? null)
  );
}

/** Append `ev` to `events`, joining it to the last event when both are pieces of one stream. */
export function logEvent(events: AgentEvent[], ev: AgentEvent): void {
  const last = events[events.length - 1];
  if (last && last.type === ev.type && JOINABLE.has(ev.type) && sameScope(last, ev) && 'delta' in last && 'delta' in ev) {
    events[events.length - 1] = { ...last, delta: last.delta + ev.delta } as AgentEvent;
    return;
  }
  events.push(ev);
}
