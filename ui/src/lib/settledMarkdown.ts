// Incremental rendering of a streaming answer: the blocks the model has
// finished are rendered once and kept (their DOM is never rebuilt); only
// the block still being written is rendered again as text arrives. At
// 64 KB, rendering the whole answer on every frame took ~88 ms.
//
// A block is finished at a cut: the start of a line, after a blank line,
// outside a code fence, before any HTML block that spans blank lines
// (comments, <pre>, <script>, <style>, <textarea>: rare in answers, and
// what follows one stays unsettled), that begins at column 0 with
// something that can only start a new block — not whitespace (an indented
// continuation or code), not a list marker (a loose list's next item: cut
// there, the list would render as two). Markdown parses such blocks
// independently, so rendering them one by one gives the same HTML as
// rendering the whole text. The exception is a link reference definition
// (`[1]: https://…`), which reaches back to earlier blocks: a text that has
// one is rendered whole.
import { renderMarkdown } from './markdown';
import { streamingView } from './streamingMarkdown';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const REFERENCE = /^ {0,3}\[[^\]]+\]:/m;
/** The start of an HTML block that runs on across blank lines. */
const HTML_BLOCK = /^ {0,3}(?:<!--|<(?:pre|script|style|textarea)(?:[\s>]|$))/i;

/** A fence's marker run, or undefined: a backtick run with a backtick after it is no fence. */
function fenceRun(line: string): string | undefined {
  const m = FENCE.exec(line);
  if (!m?.[1]) return undefined;
  if (m[1][0] === '`' && line.slice(m[0].length).includes('`')) return undefined;
  return m[1];
}

/** Whether a cut may fall before `line` (after a blank line). */
function startsBlock(line: string): boolean {
  return /^\S/.test(line) && !LIST_ITEM.test(line);
}

/** Whether `text` has a link reference definition (it reaches back). */
export function hasReference(text: string): boolean {
  return REFERENCE.test(text);
}

/**
 * The length of `text`'s finished part: the last cut at or after `from`
 * (itself a cut, or 0), or `from` when there is none.
 */
export function settledLength(text: string, from = 0): number {
  let cut = from;
  let fence: string | null = null;
  let blankBefore = false;
  let at = from;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    // The last line is still being written: it decides nothing yet.
    if (nl < 0) break;
    const line = text.slice(at, nl);
    if (fence !== null) {
      const run = FENCE.exec(line)?.[1] ?? '';
      const closes = run.length >= fence.length && run[0] === fence[0];
      if (closes && line.trimStart().slice(run.length).trim() === '') fence = null;
      blankBefore = false;
    } else if (line.trim() === '') {
      blankBefore = true;
    } else {
      if (blankBefore && startsBlock(line)) cut = at;
      // Nothing after an HTML block of these kinds settles.
      if (HTML_BLOCK.test(line)) break;
      const run = fenceRun(line);
      if (run) fence = run;
      blankBefore = false;
    }
    at = nl + 1;
  }
  return cut;
}

/** What a streaming answer renders: its finished blocks, then the rest. */
export interface LiveHtml {
  /** One HTML string per stretch of finished blocks, in order; a stretch never changes once added. */
  settled: string[];
  /** The unfinished rest, as the streaming view shows it. */
  tail: string;
}

/**
 * The finished part of the answer streamed last: when it ends, the stored
 * answer's row (another component) takes it instead of parsing it again.
 */
let latest: { source: string; parts: string[] } = { source: '', parts: [] };

/**
 * Renders one streaming answer. Keeps what it rendered of the finished
 * part; text that does not extend it (the core replaced the answer) starts
 * over.
 */
export class LiveMarkdown {
  private source = '';
  private parts: string[] = [];

  render(text: string): LiveHtml {
    // A reference definition reaches back: the whole text, as stored.
    if (hasReference(text)) {
      this.source = '';
      this.parts = [];
      return { settled: [], tail: renderMarkdown(streamingView(text), { live: true }) };
    }
    if (!text.startsWith(this.source)) {
      this.source = '';
      this.parts = [];
    }
    const cut = settledLength(text, this.source.length);
    if (cut > this.source.length) {
      this.parts = [...this.parts, renderMarkdown(text.slice(this.source.length, cut))];
      this.source = text.slice(0, cut);
      latest = { source: this.source, parts: this.parts };
    }
    return { settled: this.parts, tail: renderMarkdown(streamingView(text.slice(cut)), { live: true }) };
  }

  /**
   * The whole text, no longer streaming: what was rendered of it (here, or
   * in the live row of the answer that just ended) is kept and only the
   * rest is rendered, so a long answer is not parsed again in the frame it
   * ends. Text nobody streamed is rendered whole. `cut`: the answer ended
   * before the model finished, so a fence it left open stays code.
   */
  finish(text: string, cut = false): LiveHtml {
    const done = this.source !== '' ? { source: this.source, parts: this.parts } : latest;
    // The parts stand for the text's start only where a cut falls after
    // them in this text too.
    const rest = text.slice(done.source.length);
    const reusable = done.source !== '' && text.startsWith(done.source) && !hasReference(text) && (rest === '' || startsBlock(rest));
    if (!reusable) return { settled: [], tail: renderMarkdown(text, { live: cut }) };
    return { settled: done.parts, tail: renderMarkdown(rest, { live: cut }) };
  }
}
