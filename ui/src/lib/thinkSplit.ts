// Splits `<think>…</think>` out of streamed text deltas. Some models put
// their reasoning inline in the text instead of the native thinking field;
// a tag can be cut anywhere between two deltas, so a possible partial tag
// at the end of a delta is held back until the next one decides it.

export interface ThinkSplitState {
  inThink: boolean;
  /** Held-back tail that may be the start of a tag. */
  pending: string;
}

export interface Piece {
  thinking: boolean;
  text: string;
}

export const initialSplit: ThinkSplitState = { inThink: false, pending: '' };

/** Longest suffix of `s` that is a proper prefix of `tag`. */
function partialTagSuffix(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) {
    if (s.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}

/** Feeds one delta; returns the new state and the pieces now certain. */
export function splitThink(state: ThinkSplitState, delta: string): { state: ThinkSplitState; pieces: Piece[] } {
  let buf = state.pending + delta;
  let inThink = state.inThink;
  const pieces: Piece[] = [];
  for (;;) {
    const tag = inThink ? '</think>' : '<think>';
    const at = buf.indexOf(tag);
    if (at < 0) break;
    if (at > 0) pieces.push({ thinking: inThink, text: buf.slice(0, at) });
    buf = buf.slice(at + tag.length);
    inThink = !inThink;
  }
  const hold = partialTagSuffix(buf, inThink ? '</think>' : '<think>');
  const sure = buf.slice(0, buf.length - hold);
  if (sure) pieces.push({ thinking: inThink, text: sure });
  return { state: { inThink, pending: buf.slice(buf.length - hold) }, pieces };
}

/** At the end of a stream whatever was held back is plain content. */
export function flushThink(state: ThinkSplitState): Piece[] {
  return state.pending ? [{ thinking: state.inThink, text: state.pending }] : [];
}
