// The approval's reach, as the core writes it: "runs `ls -la` in /ws,
// sandboxed by bubblewrap: no network, …". Shown as what the call does
// (its lead, emphasised) over how it is confined (the rest), with the
// backticked parts as code, never as raw backticks (user pass 2026-12,
// defect 26). Text only: the page builds elements from the pieces, never
// HTML.

/** A run of text, or of code the core marked with backticks. */
export type Piece = { code: boolean; text: string };

/**
 * `s` cut at its backticks into text and code. An odd number of backticks
 * (a command that holds one) cannot be paired safely: all text then.
 */
export function codeSpans(s: string): Piece[] {
  const parts = s.split('`');
  if (parts.length % 2 === 0) return [{ code: false, text: s }];
  return parts.map((text, i) => ({ code: i % 2 === 1, text })).filter((p) => p.code || p.text !== '');
}

/**
 * The reach cut into its lead and the rest at the first ", " after the
 * first code span (the command or path it names); all lead when there is
 * no such place.
 */
export function splitReach(reach: string): { lead: string; rest: string } {
  const open = reach.indexOf('`');
  const close = open < 0 ? -1 : reach.indexOf('`', open + 1);
  const at = reach.indexOf(', ', close < 0 ? 0 : close + 1);
  if (at < 0) return { lead: reach, rest: '' };
  return { lead: reach.slice(0, at), rest: reach.slice(at + 2) };
}
