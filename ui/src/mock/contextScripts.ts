// The context budget in the mock: "context <pct>" answers after a
// context_usage at that share of the window (the core's warning from
// 80 % on), "compact" after older messages were summarized to make room.
import type { Body, ScriptKit, Step } from './scripts';

/** The window the mock's runs announce (run_started.context_window). */
export const WINDOW = 8192;

const ev = (b: Record<string, unknown>): Body => b as unknown as Body;

function usageAt(pct: number): Step {
  return { ev: ev({ type: 'context_usage', tokens: Math.round((WINDOW * pct) / 100), window: WINDOW, warning: pct >= 80 }) };
}

/** "context 83": the prompt is 83 % of the window. */
export function contextScript(k: ScriptKit, pct: number): Step[] {
  return [usageAt(pct), ...k.deltas('Noted.', 2), { ev: k.usage }, k.end()];
}

/** "compact": above 95 %, 12 messages are summarized, the prompt drops to about a quarter. */
export function compactScript(k: ScriptKit): Step[] {
  return [
    usageAt(96),
    { ev: ev({ type: 'context_compacted', summarized: 12, tokens_before: 7864, tokens_after: 2150 }) },
    usageAt(26),
    ...k.deltas('Answered with room to spare.', 3),
    { ev: k.usage },
    k.end(),
  ];
}
