// The core's shown text (crates/core/src/shown_text.rs) for the mock: the
// output sanitizer (crates/core/src/sanitize.rs) applied to an answer as
// it streams, holding back what may still become something it drops, so
// the mock sends what the core sends — the answer as shown. What a small
// model writes by mistake (tool calls as XML or as `[Tool Call: …]` text,
// `<final>` wrappers, an echoed `[System Message]`, a paragraph said
// twice) never shows. Reasoning tags never reach it: the core streams them
// as thinking (crates/core/src/think_tags.rs; the mock: thinkTags.ts).
// tests/fixtures/sanitizer.json holds the core's output for each case;
// the Rust suite checks shown_text.rs against it and the Chromium suite
// the page fed by this mock, so the two cannot drift apart silently.

const TOOL_TAG = '(?:minimax:)?(?:tool_call|function_call|tool_use)';
const TOOL_BLOCK = new RegExp(`<${TOOL_TAG}\\b[^>]*>[\\s\\S]*?</${TOOL_TAG}\\s*>`, 'gi');
/** An open tool-call tag, not one quoted in a code span (`` `<tool_call>` ``). */
const TOOL_OPEN = new RegExp(`(?<!\`)<${TOOL_TAG}\\b`, 'i');
const PARAMETER = /<parameter\s+name=[^>]*>[\s\S]*?<\/parameter\s*>/gi;
const PARAMETER_OPEN = /(?<!`)<parameter\s+name=/i;
const STRAY_TAG = /<\/?(?:minimax:)?(?:tool_call|function_call|tool_use|invoke)\b[^>]*>/gi;
const FINAL = /<\/?final\s*>/gi;

/** Lines that start a block the sanitizer drops, up to the next blank line (step 2, then step 5). */
const TOOL_MARKERS = ['[Tool Call:', '[Tool Result', '[Historical context:'];
const SYSTEM_MARKERS = ['[System Message]'];

/** Tag names whose beginning, cut at the end of the text, is held back. */
const TAG_PREFIXES = ['tool_call', 'function_call', 'tool_use', 'minimax:', 'invoke', 'parameter', 'final'];

/** Length of a trailing `<…` that may still become one of the tags above. */
function partialTag(s: string): number {
  // From the first such `<` after the last `>`: a tag whose attributes
  // hold a `<` is still one tag.
  const from = s.lastIndexOf('>') + 1;
  const lower = s.slice(from).toLowerCase();
  for (let at = lower.indexOf('<'); at >= 0; at = lower.indexOf('<', at + 1)) {
    if (mayBecomeTag(lower.slice(at + 1))) return s.length - (from + at);
  }
  return 0;
}

/** Whether what follows a `<` (no `>` in it) may still become one of the held tags. */
function mayBecomeTag(tail: string): boolean {
  const name = /^\/?[a-z_:]*/.exec(tail)![0].replace(/^\//, '');
  if (tail.replace(/^\//, '') === name) return TAG_PREFIXES.some((t) => t.startsWith(name) || name.startsWith(t));
  // `<parameter name="x"` or `<tool_call id=…` still waiting for its `>`.
  return TAG_PREFIXES.some((t) => name === t || name.startsWith('minimax:'));
}

/** Steps 2 and 5: marked blocks dropped; a last line that may become a marker held. */
function dropMarkedBlocks(text: string, markers: string[], hold: boolean): string {
  const out: string[] = [];
  let skipping = false;
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const t = line.trimStart();
    const last = hold && i === lines.length - 1;
    if (markers.some((m) => t.startsWith(m))) {
      skipping = true;
      return;
    }
    if (skipping) {
      if (line.trim() === '') skipping = false;
      return;
    }
    if (last && t !== '' && markers.some((m) => m.startsWith(t))) return;
    out.push(line);
  });
  return out.join('\n');
}

/** Step 6: a paragraph repeated right after itself is kept once; one that may become a repeat waits. */
function collapseRepeats(text: string, hold: boolean): string {
  const kept: string[] = [];
  const blocks = text.split('\n\n');
  blocks.forEach((block, i) => {
    const prev = kept.at(-1);
    const last = hold && i === blocks.length - 1;
    if (prev !== undefined && block.trim() !== '' && prev.trim() === block.trim()) return;
    if (last && prev !== undefined && block.trim() !== '' && prev.trim().startsWith(block.trim())) return;
    kept.push(block);
  });
  return kept.join('\n\n');
}

/**
 * An answer's text as the stored view shows it. `streaming`: more may
 * come, so what may still become something the sanitizer drops is held
 * back; once the answer has ended nothing is.
 */
export function sanitizeLive(text: string, streaming: boolean): string {
  // Step 1: tool-call XML, closed blocks out; while streaming an open one
  // holds the rest.
  let s = text.replace(TOOL_BLOCK, '').replace(PARAMETER, '');
  if (streaming) {
    for (const open of [TOOL_OPEN, PARAMETER_OPEN]) {
      const m = open.exec(s);
      if (m) s = s.slice(0, m.index);
    }
  }
  s = s.replace(STRAY_TAG, '');
  if (s.trim() === '') return '';
  // Steps 2, 4 and 5, in the core's order.
  s = dropMarkedBlocks(s, TOOL_MARKERS, streaming);
  s = s.replace(FINAL, '');
  if (streaming) s = s.slice(0, s.length - partialTag(s));
  s = dropMarkedBlocks(s, SYSTEM_MARKERS, streaming);
  // Steps 6 and 7 (the leading blank lines render as nothing anyway).
  s = collapseRepeats(s, streaming);
  // Blank first lines, as the stored view judges them (any whitespace).
  return s.replace(/^(?:[^\S\n]*\n)+/, '');
}

/** A change of the shown text: more of it, or all of it anew. */
export type ShownChange = { type: 'text_delta'; delta: string } | { type: 'text_replaced'; text: string };

/** The shown text of one agent's current answer, as the core works it out. */
export class ShownText {
  #raw = '';
  #shown = '';

  /** A piece of the answer came. Trailing whitespace waits for what follows it. */
  push(delta: string): ShownChange | null {
    this.#raw += delta;
    return this.#changeTo(sanitizeLive(this.#raw, true).trimEnd());
  }

  /** The answer ended: nothing is held back any more. */
  finish(): ShownChange | null {
    return this.#changeTo(sanitizeLive(this.#raw, false).trimEnd());
  }

  #changeTo(now: string): ShownChange | null {
    if (now === this.#shown) return null;
    const change: ShownChange = now.startsWith(this.#shown) ? { type: 'text_delta', delta: now.slice(this.#shown.length) } : { type: 'text_replaced', text: now };
    this.#shown = now;
    return change;
  }
}
