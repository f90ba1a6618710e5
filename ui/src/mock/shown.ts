// What a stored answer shows again, kept with the run as the core keeps it
// (crates/core/src/answer_record.rs): the top-level run's events besides its
// messages, without text, tool output or arguments.
import type { AgentEvent, AnswerShownView, EventKind } from '../bindings';

const KEPT = new Set<EventKind['type']>([
  'run_started', 'plan_ready', 'plan_progress', 'thinking_ended', 'approval_resolved', 'usage', 'host_failover', 'tools_unavailable', 'context_compacted', 'input_flagged', 'stream_end',
  'memory_learned', 'phase_started', 'phase_ended', 'plan_proposed', 'plan_answered', 'review_verdict',
]);

function kind(ev: AgentEvent): EventKind | null {
  if (ev.is_subagent) return null;
  const { session_id: _s, run_id: _r, parent_run_id: _p, parent_call_id: _c, is_subagent: _i, seq: _q, ...k } = ev;
  const body = k as EventKind;
  if (KEPT.has(body.type)) return body;
  switch (body.type) {
    case 'tool_event': return { ...body, output: '' };
    case 'approval_requested': return { ...body, arguments: null, reach: '', warning: null };
    case 'stream_stopped': return { ...body, partial_text: '' };
    case 'error': return { ...body, partial_text: '' };
    default: return null;
  }
}

/** Run `runId`'s record from the events it sent. */
export function shownOf(runId: string, events: AgentEvent[]): AnswerShownView {
  return { run_id: runId, events: events.flatMap((ev) => kind(ev) ?? []) };
}
