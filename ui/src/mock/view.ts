// The session as `open_session` gives it: the branch shown, its forks and
// profile switches, the sub-agents of its calls, the live run, and what
// each stored answer showed.
import type { SessionView } from '../bindings';
import type { MockBackend } from './backend';
import type { Msg, Sess } from './records';
import { shownOf } from './shown';

export function sessionView(b: MockBackend, s: Sess): SessionView {
  const path = b.path(s);
  const forks: number[][] = [];
  const kids = new Map<number | null, Msg[]>();
  for (const m of b.messages.values()) {
    if (m.session !== s.id) continue;
    const list = kids.get(m.parent_id) ?? [];
    list.push(m);
    kids.set(m.parent_id, list);
  }
  for (const m of path) {
    const sibs = (kids.get(m.parent_id) ?? []).filter((x) => x.role === m.role);
    if (sibs.length > 1 && !forks.some((f) => f.includes(m.id))) forks.push(sibs.map((x) => x.id));
  }
  const live = [...b.runs.values()].find((r) => r.session === s.id && !r.done);
  // The branch's spawn_agent calls, and theirs in turn.
  const calls = new Set(path.flatMap((m) => m.tool_calls.map((c) => c.id)));
  for (const sub of s.subagents) if (calls.has(sub.parent_call_id)) for (const m of sub.messages) for (const c of m.tool_calls) calls.add(c.id);
  return {
    id: s.id, title: s.title, profile: s.profile, messages: path.map(({ session: _s, ...m }) => m), forks, switches: s.switches,
    subagents: s.subagents.filter((sub) => calls.has(sub.parent_call_id)),
    live: live ? { run_id: live.id, prompt: live.prompt, events: [...live.events], queued: live.queue.map(({ queue_id, text }) => ({ queue_id, text })) } : null,
    model: s.model ?? null,
    host: s.host ?? null,
    answer_runs: [...b.runs.values()].filter((r) => r.session === s.id).map((r) => ({ run_id: r.id, model: r.model, host: r.host, cut_off: r.cutOff ?? false })),
    answers_shown: [...(s.shown ?? []), ...[...b.runs.values()].filter((r) => r.session === s.id && r.done).map((r) => shownOf(r.id, r.events))],
    unsent: s.unsent ?? null,
    project: s.project ?? null,
    knowledge: s.knowledge ?? false,
  };
}
