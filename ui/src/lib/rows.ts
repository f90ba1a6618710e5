// Turns a stored SessionView into the flat list of rows the virtualized
// transcript renders: a user row per user message, one answer row per run
// of consecutive assistant/tool messages (tool results are shown inside the
// card of their call, never as bubbles), and a divider where the profile
// was switched (after the answer, when a tool switched it mid-answer). Pure, so a 10,000-message session is one linear pass.
import type { AttachmentView, MessageView, SessionView } from '../ipc';

export interface Fork {
  index: number; // 1-based position among siblings
  siblings: number[];
}

export type Row =
  | { key: string; kind: 'user'; message: MessageView; fork: Fork | null }
  | { key: string; kind: 'answer'; messages: MessageView[]; results: Map<string, MessageView>; fork: Fork | null; last: boolean }
  | { key: string; kind: 'switch'; profile: string }
  | { key: string; kind: 'live-prompt'; text: string; attachments: AttachmentView[] }
  | { key: 'live'; kind: 'live' };

export function forkIndex(forks: number[][]): Map<number, Fork> {
  const m = new Map<number, Fork>();
  for (const group of forks) {
    if (group.length < 2) continue;
    group.forEach((id, i) => m.set(id, { index: i + 1, siblings: group }));
  }
  return m;
}

export function buildRows(view: SessionView): Row[] {
  const forks = forkIndex(view.forks);
  const liveRun = view.live?.run_id ?? null;
  const switchesAfter = new Map<number | null, string[]>();
  for (const s of view.switches) {
    const list = switchesAfter.get(s.after_message_id) ?? [];
    list.push(s.profile);
    switchesAfter.set(s.after_message_id, list);
  }
  const rows: Row[] = [];
  const pushSwitches = (after: number | null): void => {
    for (const [i, profile] of (switchesAfter.get(after) ?? []).entries()) {
      rows.push({ key: `sw-${after ?? 'start'}-${i}`, kind: 'switch', profile });
    }
  };
  pushSwitches(null);
  let answer: Extract<Row, { kind: 'answer' }> | null = null;
  // Switches a tool made inside an answer: shown once the answer ends, so
  // it stays one row (its results in their cards, Regenerate answering
  // the user's message).
  const within: (number | null)[] = [];
  const endAnswer = () => {
    for (const after of within.splice(0)) pushSwitches(after);
    answer = null;
  };
  for (const m of view.messages) {
    if (liveRun !== null && m.run_id === liveRun) continue;
    if (m.role === 'system') continue;
    if (m.role === 'user') {
      endAnswer();
      rows.push({ key: `m${m.id}`, kind: 'user', message: m, fork: forks.get(m.id) ?? null });
      pushSwitches(m.id);
    } else {
      if (m.role === 'tool') {
        if (answer && m.tool_call_id) answer.results.set(m.tool_call_id, m);
      } else {
        if (!answer) {
          answer = { key: `a${m.id}`, kind: 'answer', messages: [], results: new Map(), fork: forks.get(m.id) ?? null, last: false };
          rows.push(answer);
        }
        answer.messages.push(m);
      }
      if (switchesAfter.has(m.id)) within.push(m.id);
    }
  }
  endAnswer();
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    if (r && r.kind === 'answer') {
      r.last = true;
      break;
    }
    if (r && r.kind === 'user') break;
  }
  return rows;
}
