// How the input guard's findings and the context budget are said to the
// user, and which stored message a finding belongs to. Pure, so the
// wording is the same on a live answer and on a stored one.
import type { MessageView } from '../ipc';
import type { Compaction, GuardFlag } from './turn';

/** On a tool card: what was found, and what became of the result. */
export function toolFlagText(f: GuardFlag): string {
  const fate = f.blocked ? 'withheld from the model' : 'the model was told to treat it as data';
  return `Looks like a prompt injection: ${f.patterns.join(', ')} — ${fate}`;
}

/** Under the user's message. */
export function userFlagText(f: GuardFlag): string {
  const fate = f.blocked ? ' It was not sent to the model.' : '';
  return `Input guard: your message looks like a prompt injection (${f.patterns.join(', ')}).${fate}`;
}

/** In the answer whose run made room. */
export function compactionText(c: Compaction): string {
  const what = c.summarized === 1 ? 'the first message' : `the first ${c.summarized} messages`;
  return `Summarized ${what} to make room (~${c.tokens_before} → ~${c.tokens_after} tokens). Nothing was deleted.`;
}

/** Near the composer, once the prompt passes 80 % of the window. */
export function contextWarningText(tokens: number, window: number): string {
  const pct = window > 0 ? Math.round((tokens / window) * 100) : 0;
  return `Context ${pct}% full — older messages will be summarized automatically at 95%.`;
}

/**
 * The user message run `runId` answered: the last one before the run's
 * first answer on the branch. That is its own prompt (stored with its run
 * id), or, for a regenerated answer, the older message screened again; a
 * blocked run stored no answer, so it is the branch's last user message.
 */
export function answeredMessage(messages: MessageView[], runId: string): number | null {
  let last: number | null = null;
  for (const m of messages) {
    if (m.run_id === runId && m.role !== 'user') break;
    if (m.role === 'user') last = m.id;
  }
  return last;
}
