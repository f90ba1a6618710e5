// What of a streaming answer can be shown now. Markdown that is cut
// mid-construct renders differently from how it will end: `**bo` shows its
// stars until the closing pair arrives, `| a | b |` shows its pipes until
// the delimiter row makes it a table, `1.` is text until the space makes
// it a list item. Rendered as it comes, the answer's visible text would
// shrink and markers would flash and vanish. So, before rendering a live
// answer:
//
// - a last line that is only the start of a block (a bullet, `1.`, `#`,
//   `>`, `---` in the making, a fence still getting its language) is held
//   back until it has content;
// - a table is held back until its delimiter row is complete;
// - inside an open fence, a last line that may be the closing fence is held
//   back (an unclosed fence already renders to the end);
// - in the last block, a link is held back from its `[` until it is a link
//   or plain text, and trailing markers with nothing after them are held;
// - an open code span is closed, then remend (streamdown's completer)
//   closes open emphasis and strikethrough.
//
// Held text is never lost: it shows as soon as the next deltas decide it,
// and the stored answer is rendered from the full text. A Chromium test
// streams answers one character at a time and checks that the rendered
// text only grows (tests/ui/streaming.test.mjs).
import remend from 'remend';

/** A line that opens or closes a fence (CommonMark: 3+ backticks or tildes). */
const FENCE = /^\s*(`{3,}|~{3,})/;

/**
 * A line that is nothing yet but the start of a block: a bullet (with a
 * task box in the making), an ordered marker, heading hashes, a quote
 * marker, a thematic break or setext underline in the making, or the
 * first backticks or tildes of a fence.
 */
const MARKER_ONLY = /^\s*(?:(?:[-*+]|\d{1,9}[.)])(?:\s+\[[ xX]?\]?)?|\d{1,9}|#{1,6}|>+|[-*_=](?:\s*[-*_=])*|`{1,2}|~{1,2})?\s*$/;

/**
 * A line that may be a table row. Tables written without a leading pipe
 * are not held (a pipe inside a sentence would hold every line that has
 * one); models write the leading pipe.
 */
const ROW = /^\s*\|/;

/** A complete table delimiter row: `|---|:--:|`. */
const DELIMITER_ROW = /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/;

/** What a delimiter row can look like before it is complete. */
const DELIMITER_PREFIX = /^\s*\|?(?:\s*:?-*:?\s*\|)*\s*:?-*:?\s*$/;

/** How far back an unmatched `[` may hold text before it is shown as is. */
const MAX_LINK_HOLD = 200;

/** Block state after the complete lines of the text. */
interface Blocks {
  /** The open fence's marker (e.g. "```"), or null outside a fence. */
  fence: string | null;
  /** The last line belongs to a table whose delimiter row is complete. */
  inTable: boolean;
  /** The last line starts with a pipe, and so may be a table's header row. */
  pipe: boolean;
}

function scanBlocks(lines: string[]): Blocks {
  let fence: string | null = null;
  let inTable = false;
  let pipe = false;
  for (const line of lines) {
    if (fence !== null) {
      const m = /^\s*(`{3,}|~{3,})\s*$/.exec(line);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length) fence = null;
      continue;
    }
    const open = FENCE.exec(line);
    if (open) {
      fence = open[1]!;
      inTable = pipe = false;
    } else if (line.trim() === '') {
      inTable = pipe = false;
    } else {
      if (!inTable && pipe && DELIMITER_ROW.test(line)) inTable = true;
      pipe = ROW.test(line);
    }
  }
  return { fence, inTable, pipe };
}

/** The first `n` lines, then `partial` as the unfinished last line. */
function joinLines(lines: string[], n: number, partial: string): string {
  const head = lines.slice(0, n).join('\n');
  if (n === 0) return partial;
  return `${head}\n${partial}`;
}

/** A code span's closing run: exactly `n` backticks, not part of a longer run. */
function closingRun(s: string, from: number, n: number): number {
  for (let i = s.indexOf('`', from); i >= 0; i = s.indexOf('`', i)) {
    let j = i;
    while (s[j] === '`') j++;
    if (j - i === n) return i;
    i = j;
  }
  return -1;
}

/** Index of the `)` that ends a link destination opened at `open`, or -1. */
function closingParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** A line that starts a block, and so ends the paragraph before it. */
const BLOCK_START = /^\s*(?:[-*+]\s|\d{1,9}[.)]\s|#{1,6}\s|>|\|)/;

/**
 * Where the last paragraph (or list item, heading, quote, row) of `s`
 * starts; after a closing fence, nothing of it is inline text.
 */
function lastBlockStart(s: string): number {
  let end = s.length;
  for (;;) {
    const at = s.lastIndexOf('\n', end - 1) + 1;
    const line = s.slice(at, end);
    if (line.trim() === '' || FENCE.test(line)) return end;
    if (at === 0 || BLOCK_START.test(line)) return at;
    end = at - 1;
  }
}

/**
 * The inline part, on `s` without line ends at its end: in the last block
 * (emphasis, code spans and links do not cross blocks) a link not yet
 * decided is held from its `[`, and an open code span is closed.
 */
function holdInline(s: string): string {
  let link = -1; // the `[` of a link that is not decided yet
  let depth = 0;
  let span: { at: number; run: number } | null = null;
  for (let i = lastBlockStart(s); i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
    } else if (c === '`') {
      let j = i;
      while (s[j] === '`') j++;
      const close = closingRun(s, j, j - i);
      if (close < 0) {
        span = { at: i, run: j - i };
        break;
      }
      i = close + (j - i) - 1;
    } else if (c === '[') {
      if (depth++ === 0) link = i;
    } else if (c === ']' && depth > 0 && --depth === 0) {
      if (i === s.length - 1) break; // `[text]` at the end: a `(` may follow
      if (s[i + 1] !== '(') {
        link = -1; // plain brackets
        continue;
      }
      const close = closingParen(s, i + 1);
      if (close < 0) break; // the destination is still coming
      link = -1;
      i = close;
    }
  }
  if (link >= 0 && s.length - link <= MAX_LINK_HOLD && (!span || span.at > link)) {
    return holdInline(dropBareMarker(trimTrailing(s.slice(0, link))));
  }
  if (!span) return s;
  // Close the open code span (it is innermost), without a backtick of its
  // own at the end that the closing run would join.
  const body = s.slice(span.at + span.run).replace(/`+$/, '');
  if (body.trim() === '') return holdInline(dropBareMarker(trimTrailing(s.slice(0, span.at))));
  return `${s.slice(0, span.at + span.run)}${body}${'`'.repeat(span.run)}`;
}

/**
 * `s` less trailing emphasis markers with nothing after them, a trailing
 * `!` or `[` (an image or link may start), spaces and line ends (remend
 * would close emphasis on the next line, where it does not count).
 * Backticks are left to `holdInline`, which knows an opening run from a
 * closing one.
 */
function trimTrailing(s: string): string {
  return s.replace(/[*_~[\\!\s]+$/, '');
}

/** `s` less its last line when that is only a block marker. */
function dropBareMarker(s: string): string {
  const cut = s.lastIndexOf('\n');
  return MARKER_ONLY.test(s.slice(cut + 1)) ? trimTrailing(s.slice(0, Math.max(cut, 0))) : s;
}

/**
 * remend closes open `**`, `*`, `_`, `__`, `***` and `~~`. What it would
 * change that the final rendering does not (links, code spans, math, `~`
 * and `>` escapes, setext guards, cutting `<tag`: HTML shows as text
 * here) is off. Only the last block is given to it: a marker left open in
 * a finished block stays as it is, as in the final rendering.: those are held above, or not ours to change.
 */
function remendEmphasis(s: string): string {
  const at = lastBlockStart(s);
  return s.slice(0, at) + remend(s.slice(at), {
    links: false,
    images: false,
    inlineCode: false,
    katex: false,
    inlineKatex: false,
    comparisonOperators: false,
    singleTilde: false,
    setextHeadings: false,
    htmlTags: false,
  });
}

/** The part of a streaming answer's Markdown to render now (see above). */
export function streamingView(src: string): string {
  const lines = src.split('\n');
  let partial = lines.pop() ?? '';
  let keep = lines.length;
  const blocks = scanBlocks(lines);
  if (blocks.fence !== null) {
    // Inside a fence the text is code: only a closing fence can change it.
    if (new RegExp(`^\\s*\\${blocks.fence[0]}*$`).test(partial)) partial = '';
    return joinLines(lines, keep, partial);
  }
  if (FENCE.test(partial) || MARKER_ONLY.test(partial)) partial = '';
  if (!blocks.inTable) {
    // Not a table yet: a row-like line waits, and so does a header row
    // while its delimiter row is being written.
    if (ROW.test(partial)) partial = '';
    if (blocks.pipe && DELIMITER_PREFIX.test(partial)) {
      keep -= 1;
      partial = '';
    }
  }
  // What the inline pass holds may leave a bare marker on the last line.
  return remendEmphasis(holdInline(dropBareMarker(trimTrailing(joinLines(lines, keep, partial)))));
}
