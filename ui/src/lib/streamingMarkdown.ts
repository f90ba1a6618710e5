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
//   or plain text (an autolink from its `<` until its `>`), and trailing
//   markers with nothing after them are held;
// - an open code span is closed, then open emphasis and strikethrough are
//   closed, innermost first, by CommonMark's delimiter rules (ADR 0008).
//
// Held text is never lost: it shows as soon as the next deltas decide it,
// and the stored answer is rendered from the full text. A Chromium test
// streams answers one character at a time and checks that the rendered
// text only grows (tests/ui/streaming.test.mjs).
/**
 * A line that opens or closes a fence (CommonMark: 3+ backticks or tildes,
 * at most 3 spaces in; a backtick fence's info string has no backtick, so
 * ```x``` on one line is a code span), also after a list marker or a
 * quote's `>`. Fences inside list items are indented further; 4+ spaces
 * elsewhere would be indented code, which models do not write, so any
 * indentation is taken.
 */
const FENCE = /^\s*(?:(?:[-*+]|\d{1,9}[.)])\s+|>\s?)*(`{3,}(?=[^`]*$)|~{3,})/;

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

/** What a delimiter row can look like before it is complete (linear: no nested quantifiers). */
const DELIMITER_PREFIX = /^[\s:|-]*$/;

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
      const m = /^\s*(?:>\s?)*(`{3,}|~{3,})\s*$/.exec(line);
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
    if (at === 0) return at;
    const quoted = /^\s*>\s?(.*)$/.exec(line);
    if (quoted) {
      // A quote's lines go on with the paragraph inside it, unless one
      // is blank or starts a block of its own.
      const inner = quoted[1]!;
      if (inner.trim() === '') return end;
      if (BLOCK_START.test(inner)) return at;
      const prev = s.slice(s.lastIndexOf('\n', at - 2) + 1, at - 1);
      if (!/^\s*>/.test(prev)) return at;
    } else if (BLOCK_START.test(line)) {
      return at;
    }
    end = at - 1;
  }
}

/**
 * An autolink still waiting for its `>` (`<https://…`, `<someone@…`, or
 * a `<` that may become one). A `<b` that becomes `<br>` shows as text
 * (raw HTML is text here), so holding it until `>` loses nothing.
 */
const AUTOLINK_OPEN = /^<(?:[a-z][a-z0-9+.-]*(?::[^\s<>]*)?|[^\s<>@]+@[^\s<>]*)?$/i;

/** An entity or character reference still waiting for its `;`. */
const ENTITY_OPEN = /&#?[a-z0-9]{0,31}$/i;

/**
 * The inline part, one pass over the last block (emphasis, code spans and
 * links do not cross blocks): a link not yet decided is held from its `[`
 * (an autolink from its `<`), an open code span with nothing in it yet is
 * held, one with content is closed. Trailing text is decided here before
 * anything is trimmed: `[1] ` is plain brackets, `[1]` may become a link.
 */
function holdInline(s: string): string {
  let link = -1; // the `[` of a link that is not decided yet
  let inDestination = false; // past its `](`
  let depth = 0;
  for (let i = lastBlockStart(s); i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
    } else if (c === '`') {
      let j = i;
      while (s[j] === '`') j++;
      const close = closingRun(s, j, j - i);
      if (close >= 0) {
        i = close + (j - i) - 1;
        continue;
      }
      if (link >= 0) break; // the link's hold covers it
      // The open code span is the innermost construct: close it, without a
      // backtick of its own at the end that the closing run would join.
      const rest = s.slice(j);
      const body = rest.slice(0, endBefore(rest, '`'));
      if (body.trim() === '') return s.slice(0, i);
      // `The ` char`: one backtick then a space is rarely code (longer
      // runs are padded with spaces on purpose); shown as is.
      if (j - i === 1 && /^\s/.test(body)) {
        i = j - 1;
        continue;
      }
      return `${s.slice(0, j)}${body}${'`'.repeat(j - i)}`;
    } else if (c === '<' && link < 0 && AUTOLINK_OPEN.test(s.slice(i))) {
      return s.slice(0, i);
    } else if (c === '[') {
      if (depth++ === 0) link = i;
    } else if (c === ']' && depth > 0 && --depth === 0) {
      if (i === s.length - 1) break; // `[text]` at the end: a `(` may follow
      if (s[i + 1] !== '(') {
        link = -1; // plain brackets
        continue;
      }
      const close = closingParen(s, i + 1);
      // A destination has no spaces, unless a title follows one.
      const rest = s.slice(i + 2, close < 0 ? s.length : close);
      if (close < 0 && !/\s(?![\s"'(]|$)/.test(rest)) {
        inDestination = true;
        break; // the destination is still coming
      }
      link = -1;
      if (close >= 0) i = close;
    }
  }
  if (link >= 0 && (inDestination || s.length - link <= MAX_LINK_HOLD)) {
    return s.slice(0, s[link - 1] === '!' ? link - 1 : link);
  }
  const entity = ENTITY_OPEN.exec(s);
  return entity ? s.slice(0, entity.index) : s;
}

/**
 * `s` less trailing emphasis markers with nothing after them, a trailing
 * `!` (an image may start), spaces and line ends (emphasis closed after a
 * line end would not count). Backticks and brackets are decided by
 * `holdInline`, which knows an opening run from a closing one.
 */
function trimTrailing(s: string): string {
  return s.slice(0, endBefore(s, '*_~\\! \t\n\r'));
}

/**
 * Where the trailing run of `chars` in `s` starts. A loop, not `/[…]+$/`:
 * a regex anchored only at the end retries from every position, which is
 * quadratic on a long run followed by something else.
 */
function endBefore(s: string, chars: string): number {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1]!)) end--;
  return end;
}

/** `s` less its last line when that is only a block marker. */
function dropBareMarker(s: string): string {
  const cut = s.lastIndexOf('\n');
  return MARKER_ONLY.test(s.slice(cut + 1)) ? trimTrailing(s.slice(0, Math.max(cut, 0))) : s;
}

const PUNCTUATION = /[\p{P}\p{S}]/u;
const SPACE = /\s/;

/** An unmatched emphasis opener: its character and how many are open. */
interface Opener {
  ch: string;
  n: number;
}

/**
 * Closes the emphasis and strikethrough left open in the last block,
 * innermost first (`**Do *not` → `**Do *not***`). Delimiter runs of `*`,
 * `_` and `~` open and close by CommonMark's flanking rules (`_` not
 * inside a word, `*` anywhere); code spans, escapes, autolinks and link
 * destinations are skipped. Nothing after the last character is known, so
 * the end counts as a space.
 */
function closeEmphasis(s: string): string {
  const stack: Opener[] = [];
  for (let i = lastBlockStart(s); i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '`') {
      let j = i;
      while (s[j] === '`') j++;
      const close = closingRun(s, j, j - i);
      // An unmatched run is text here (holdInline closed any open span).
      i = close < 0 ? j - 1 : close + (j - i) - 1;
      continue;
    }
    if (c === '<') {
      const end = s.indexOf('>', i);
      if (end > 0 && /^<(?:[a-z][a-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>]*)>$/i.test(s.slice(i, end + 1))) i = end;
      continue;
    }
    if (c === ']' && s[i + 1] === '(') {
      const close = closingParen(s, i + 1);
      if (close > 0) i = close;
      continue;
    }
    if (c !== '*' && c !== '_' && c !== '~') continue;
    let j = i;
    while (s[j] === c) j++;
    const before = s[i - 1] ?? '\n';
    const after = s[j] ?? '\n';
    const left = !SPACE.test(after) && (!PUNCTUATION.test(after) || SPACE.test(before) || PUNCTUATION.test(before));
    const right = !SPACE.test(before) && (!PUNCTUATION.test(before) || SPACE.test(after) || PUNCTUATION.test(after));
    const canOpen = c === '_' ? left && (!right || PUNCTUATION.test(before)) : left;
    const canClose = c === '_' ? right && (!left || PUNCTUATION.test(after)) : right;
    let n = j - i;
    if (c === '~' && n !== 2) n = 0; // only `~~` strikes through; `~5 min` is text
    if (canClose) {
      for (let k = stack.length - 1; k >= 0 && n > 0; k--) {
        const o = stack[k]!;
        if (o.ch !== c) continue;
        const used = c === '~' ? (o.n === n ? n : 0) : Math.min(o.n, n, 2);
        if (used === 0) continue;
        o.n -= used;
        n -= used;
        // Openers inside the matched pair can no longer be closed.
        stack.length = o.n === 0 ? k : k + 1;
        k = stack.length;
      }
    }
    if (canOpen && n > 0) stack.push({ ch: c, n });
    i = j - 1;
  }
  if (stack.length === 0) return s;
  return s + stack.reverse().map((o) => o.ch.repeat(o.n)).join('');
}

/**
 * An answer that was cut off (stopped, or broken off by a failure) as it
 * is shown: its open emphasis and strikethrough closed as while it
 * streamed, so a `**` cut before its pair is not shown as two stars (user
 * pass 2026-12, defect 29). The stored text keeps what the model wrote.
 */
export function cutOffView(src: string): string {
  // Trailing space would keep the added `**` from closing anything.
  const text = src.trimEnd();
  // Inside an open fence the stars are code.
  if (scanBlocks(text.split('\n')).fence !== null) return text;
  return closeEmphasis(text);
}

/** The part of a streaming answer's Markdown to render now (see above). */
export function streamingView(src: string): string {
  const lines = src.split('\n');
  let partial = lines.pop() ?? '';
  let keep = lines.length;
  const blocks = scanBlocks(lines);
  if (blocks.fence !== null) {
    // Inside a fence the text is code: only a closing fence can change it.
    if (new RegExp(`^\\s*(?:>\\s?)*\\${blocks.fence[0]}*$`).test(partial)) partial = '';
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
  const held = holdInline(joinLines(lines, keep, partial));
  return closeEmphasis(dropBareMarker(trimTrailing(held)));
}
