// Hearth's own notice at the end of an answer it ended (a runaway, a token
// limit: crates/core/src/runaway.rs writes it, and takes it off before the
// answer goes back to the model). Shown apart from the answer's Markdown,
// so an unclosed code fence in the answer does not swallow it (user pass
// 2026-12, defect 9).

/** How the core starts a notice (crates/core/src/runaway.rs, NOTICE_START). */
const START = '\n\n[Hearth ended this answer: ';

/** The answer without its notice, and the notice's words (null: none). */
export function splitNotice(text: string): { body: string; notice: string | null } {
  const at = text.lastIndexOf(START);
  if (at < 0 || !text.endsWith('.]') || text.slice(at + START.length).includes('\n\n')) return { body: text, notice: null };
  return { body: text.slice(0, at), notice: text.slice(at + 3, -1) };
}
