// The mock's stand-in for the core's think_tags.rs: the mock plays a core,
// so reasoning its scripts write inline in tags reaches the page as
// thinking_delta, as the core sends it. Some models
// put their reasoning inline in the text instead of the native thinking
// field. The tags are those the stored view splits out (the core's
// `split_thinking`): think, thinking, thought and antThinking, in any case,
// with or without attributes. A tag can be cut anywhere between two deltas,
// so a possible partial tag at the end of a delta is held back until the
// next one decides it.

export interface ThinkSplitState {
  inThink: boolean;
  /** Held-back tail that may be the start of a tag. */
  pending: string;
  /** The open tag's name (lower case), while inside one. */
  tag?: string;
  /** The character before `pending` (a backtick there quotes a tag). */
  before?: string;
}

export interface Piece {
  thinking: boolean;
  text: string;
}

export const initialSplit: ThinkSplitState = { inThink: false, pending: '' };

const NAMES = ['think', 'thinking', 'thought', 'antthinking'];

/** An opening tag: `<think>`, `<Thinking attr="x">`… */
const OPEN = /<(think|thinking|thought|antthinking)(?:\s[^>]*)?>/gi;

/** The closing tag of `name`. */
function closer(name: string): RegExp {
  return new RegExp(`</${name}\\s*>`, 'gi');
}

/** Length of the longest suffix of `s` that may still become an opening tag. */
function partialOpen(s: string): number {
  const at = s.lastIndexOf('<');
  if (at < 0) return 0;
  const tail = s.slice(at + 1).toLowerCase();
  if (tail.includes('>')) return 0;
  const name = /^[a-z]*/.exec(tail)![0];
  const rest = tail.slice(name.length);
  if (rest === '') return NAMES.some((n) => n.startsWith(name)) ? s.length - at : 0;
  // A whole name then attributes not yet closed by `>`.
  return NAMES.includes(name) && /^\s/.test(rest) ? s.length - at : 0;
}

/** Length of the longest suffix of `s` that may still become `</name>`. */
function partialClose(s: string, name: string): number {
  const at = s.lastIndexOf('<');
  if (at < 0) return 0;
  const tail = s.slice(at).toLowerCase();
  const full = `</${name}`;
  if (full.startsWith(tail)) return s.length - at;
  return tail.startsWith(full) && /^\s*$/.test(tail.slice(full.length)) ? s.length - at : 0;
}

/** Feeds one delta; returns the new state and the pieces now certain. */
export function splitThink(state: ThinkSplitState, delta: string): { state: ThinkSplitState; pieces: Piece[] } {
  let buf = state.pending + delta;
  let inThink = state.inThink;
  let tag = state.tag ?? 'think';
  const pieces: Piece[] = [];
  let from = 0;
  for (;;) {
    const re = inThink ? closer(tag) : OPEN;
    re.lastIndex = from;
    const m = re.exec(buf);
    if (!m) break;
    // A tag quoted in a code span (`` `<think>` ``) is text about tags.
    if (!inThink && (m.index > 0 ? buf[m.index - 1] : state.before) === '`') {
      from = m.index + m[0].length;
      continue;
    }
    from = 0;
    if (m.index > 0) pieces.push({ thinking: inThink, text: buf.slice(0, m.index) });
    buf = buf.slice(m.index + m[0].length);
    if (!inThink) tag = m[1]!.toLowerCase();
    inThink = !inThink;
  }
  const hold = inThink ? partialClose(buf, tag) : partialOpen(buf);
  const sure = buf.slice(0, buf.length - hold);
  if (sure) pieces.push({ thinking: inThink, text: sure });
  const before = sure ? sure.at(-1) : pieces.length > 0 ? '' : state.before;
  return { state: { inThink, pending: buf.slice(buf.length - hold), tag, before }, pieces };
}

/** At the end of a stream whatever was held back is plain content. */
export function flushThink(state: ThinkSplitState): Piece[] {
  return state.pending ? [{ thinking: state.inThink, text: state.pending }] : [];
}
