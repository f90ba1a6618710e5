// What screen readers are told when an answer ends (App.svelte's polite
// live region): once per answer, not every streamed word.
import type { TurnModel } from './turn';

/** What a screen reader is told when a run ends: the answer's start, or how it ended. */
export function announce(t: TurnModel): string {
  if (t.status === 'error') return `The answer failed: ${t.error?.message ?? 'unknown error'}`;
  if (t.status !== 'done') return 'The answer was stopped.';
  const text = t.stored.filter((m) => m.role === 'assistant').map((m) => m.content).join(' ').trim();
  return text ? `Answer: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}` : 'The answer is done.';
}
