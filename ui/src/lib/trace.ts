// A run's trace (spans recorded by the core) in words: one line of figures
// per span, chosen by its kind.
import type { SpanView, TraceView } from '../ipc';
import { ms } from './format';

/** "complete · 2.4 s"; a run still going has no status yet. */
export function traceSummary(t: TraceView): string {
  const status = t.status ?? 'running';
  return t.duration_ms === null ? status : `${status} · ${ms(t.duration_ms)}`;
}

/**
 * The figures of a span: tokens (with how many of the prompt's the server
 * reused from its cache, when it says) and the server's own timings for a
 * model call, the outcome for a tool, the recorded line for the rest.
 */
export function spanDetail(s: SpanView): string {
  // A side request (plan, title, memory, summary) is a model call too; its
  // detail says which.
  if (s.kind !== 'model' && s.kind !== 'side') return s.detail ?? '';
  const parts: string[] = [];
  if (s.tokens_in !== null) {
    parts.push(s.tokens_cached === null ? `${s.tokens_in} in` : `${s.tokens_in} in (${s.tokens_cached} cached)`);
  }
  if (s.tokens_out !== null) parts.push(`${s.tokens_out} out`);
  if (s.load_ms !== null) parts.push(`load ${ms(s.load_ms)}`);
  if (s.prompt_eval_ms !== null) parts.push(`prompt eval ${ms(s.prompt_eval_ms)}`);
  if (s.eval_ms !== null) parts.push(`eval ${ms(s.eval_ms)}`);
  if (s.detail) parts.push(s.detail);
  return parts.join(' · ');
}
