// The words of an answer's sources (docs/knowledge.md, "Sources under an
// answer"), and which stored answers may have any: only those are asked
// about, so opening a session does not make one call per message.
import type { MessageView, QuoteView, SourceView } from '../ipc';

/** The tool whose results are an answer's passages. */
export const SEARCH_TOOL = 'search_knowledge';
/** The file of passages the core attaches to a message of a chat with Knowledge on. */
export const PASSAGES_FILE = 'knowledge-passages.md';

/** "lines 3–9", or "line 4" for one. */
export function lines(s: { start_line: number; end_line: number }): string {
  return s.end_line > s.start_line ? `lines ${s.start_line}–${s.end_line}` : `line ${s.start_line}`;
}

/** "[1] passport.md › Papers › Passport › Renewal · lines 3–9". */
export function sourceLabel(s: SourceView): string {
  return `[${s.n}] ${s.name}${s.heading ? ` › ${s.heading}` : ''} · ${lines(s)}`;
}

const marks = (ns: number[]): string => ns.map((n) => `[${n}]`).join(', ');

/** What a number no passage has means. */
export function unknownWarning(n: number): string {
  return `[${n}] — no passage has this number: the citation is not backed by a source`;
}

/** What a quotation that does not hold means; null for one that holds. */
export function quoteWarning(q: QuoteView): string | null {
  if (q.holds) return null;
  if (q.found_in !== null) return `“${q.text}” is not in ${marks(q.cites)}; it is in [${q.found_in}]`;
  return `“${q.text}” is not in ${marks(q.cites)} nor in any passage given: not from the sources`;
}

/**
 * Which stored answers may have sources, for a branch's messages: those
 * whose run called `search_knowledge` (by run id), and those answering a
 * question that carried the passages file (by the answer's message ids).
 */
export function mayHaveSources(messages: MessageView[]): { runs: Set<string>; answers: Set<number> } {
  const runs = new Set<string>();
  const answers = new Set<number>();
  let carried = false;
  for (const m of messages) {
    if (m.run_id && (m.tool_name === SEARCH_TOOL || m.tool_calls.some((c) => c.name === SEARCH_TOOL))) runs.add(m.run_id);
    if (m.role === 'user') carried = m.attachments.some((a) => a.name === PASSAGES_FILE);
    else if (carried && m.role === 'assistant') answers.add(m.id);
  }
  return { runs, answers };
}

/**
 * The message of an answer row whose sources are asked for: its last
 * assistant message with text (the core checks that message's words),
 * when the answer may have sources; else null.
 */
export function sourcesMessage(row: MessageView[], may: { runs: Set<string>; answers: Set<number> }): number | null {
  const answer = [...row].reverse().find((m) => m.role === 'assistant' && m.content.trim() !== '');
  if (!answer) return null;
  return (answer.run_id !== null && may.runs.has(answer.run_id)) || may.answers.has(answer.id) ? answer.id : null;
}
