// run_trace in the mock: the spans the core would have recorded, read back
// from the run's own events (a model span per usage, a tool span per
// result, a guard span per finding, a compaction span per summary).
import type { AgentEvent, SpanView, StatusView, TraceView } from '../bindings';

/** What the mock keeps of a run for its trace. */
export interface Traced {
  id: string;
  events: AgentEvent[];
  startedAt: number;
  endedAt: number | null;
  model: string;
}

const span = (s: Partial<SpanView> & Pick<SpanView, 'kind' | 'name'>): SpanView => ({
  duration_ms: 0, tokens_in: null, tokens_cached: null, tokens_out: null, load_ms: null, prompt_eval_ms: null, eval_ms: null, error: null, detail: null, ...s,
});

export function traceOf(run: Traced): TraceView {
  const spans: SpanView[] = [];
  const toolNames = new Map<string, string>();
  let status: StatusView | null = null;
  for (const e of run.events) {
    if (e.is_subagent) continue;
    switch (e.type) {
      case 'tool_started':
        toolNames.set(e.call_id, e.name);
        break;
      case 'usage': {
        const u = e.usage;
        const duration = (u.load_ms ?? 0) + (u.prompt_eval_ms ?? 0) + (u.eval_ms ?? 0);
        spans.push(span({ kind: 'model', name: run.model, duration_ms: duration, tokens_in: u.prompt_tokens, tokens_cached: u.prompt_cached_tokens, tokens_out: u.completion_tokens, load_ms: u.load_ms, prompt_eval_ms: u.prompt_eval_ms, eval_ms: u.eval_ms, detail: u.done_reason }));
        break;
      }
      case 'tool_event':
        spans.push(span({ kind: 'tool', name: e.name, duration_ms: e.duration_ms, detail: e.outcome, error: e.outcome === 'ok' ? null : e.output }));
        break;
      case 'input_flagged': {
        const what = e.source === 'user' ? 'user message' : `result of ${toolNames.get(e.call_id ?? '') ?? 'a tool'}`;
        spans.push(span({ kind: 'guard', name: e.patterns.join(', '), detail: `${what}${e.blocked ? ' (blocked)' : ''}` }));
        break;
      }
      case 'context_compacted':
        spans.push(span({ kind: 'compaction', name: run.model, duration_ms: 850, detail: `${e.summarized} messages summarized, ~${e.tokens_before} → ~${e.tokens_after} tokens` }));
        break;
      case 'stream_end':
        status = 'complete';
        break;
      case 'stream_stopped':
        status = 'interrupted';
        break;
      case 'error':
        status = 'error';
        break;
    }
  }
  return { run_id: run.id, status, duration_ms: run.endedAt === null ? null : run.endedAt - run.startedAt, spans };
}
