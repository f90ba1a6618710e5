// What an ended run leaves on the page: the session view with what the run
// stored taken in (from its message_stored and profile_switched events,
// without reading the session again), and what the events taught besides
// the messages (`RunExtras`). The core keeps those events with the run
// (`SessionView.answers_shown`), so a stored answer, also after a restart,
// is given the same extras by folding them the same way (`shownExtras`).
import type { ApprovalDecision, AnswerShownView, ErrorInfo, SessionView, Usage } from '../ipc';
import type { WorkflowModel } from './workflow';
import { newTurn, reduceTurn, type AgentModel, type Compaction, type GuardFlag, type HostFailover, type ToolsUnavailable, type TurnModel } from './turn';

export interface RunExtras {
  usage: Usage[];
  error: ErrorInfo | null;
  model: string;
  /** The host that answered ('' when the events did not say: an older core's). */
  host: string;
  /** Outcomes the store cannot tell (denied, cancelled), by call id. */
  outcomes: Map<string, 'denied' | 'cancelled'>;
  /** The input guard's findings on tool results, by call id. */
  flags: Map<string, GuardFlag>;
  compactions: Compaction[];
  unavailable: ToolsUnavailable[];
  failovers: HostFailover[];
  /** The plan the answer starts with, and the steps marked done. */
  plan: { plan: string; done: number[] } | null;
  /** Each tool call's time, by call id. */
  durations: Map<string, number>;
  /** The user's answer to each call that asked, by call id. */
  approvals: Map<string, ApprovalDecision>;
  /** How long each model call that reasoned did, in order (ms). */
  thoughts: number[];
  /** A `/plan` run's phases, plan and verdicts. */
  workflow: WorkflowModel | null;
}

/** What an ended run's answer shows besides its messages. */
export function runExtras(t: TurnModel): RunExtras {
  const durations = new Map<string, number>();
  const approvals = new Map<string, ApprovalDecision>();
  let plan: RunExtras['plan'] = null;
  const thoughts: number[] = [];
  for (const b of t.blocks) {
    if (b.kind === 'plan') plan = { plan: b.plan, done: [...b.done] };
    if (b.kind === 'thinking' && b.ms !== undefined) thoughts.push(b.ms);
    if (b.kind !== 'tool') continue;
    if (b.call.duration_ms !== null) durations.set(b.call.call_id, b.call.duration_ms);
    if (b.call.approval?.decision) approvals.set(b.call.call_id, b.call.approval.decision);
  }
  return {
    usage: t.usage, error: t.error, model: t.model, host: t.host, outcomes: unstoredOutcomes(t), flags: toolFlags(t), compactions: t.compactions, unavailable: t.unavailable, failovers: t.failovers, plan, durations, approvals, thoughts, workflow: t.workflow,
  };
}

/** A stored answer's extras, from the events the core kept with its run (folded as the live ones were). */
export function shownExtras(session: string, a: AnswerShownView): RunExtras {
  const scope = { session_id: session, run_id: a.run_id, parent_run_id: null, parent_call_id: null, is_subagent: false };
  // The thinking text is in the messages, not the events: a thinking
  // block is opened for each call's `thinking_ended` to carry its time.
  const opened = (t: TurnModel, kind: AnswerShownView['events'][number]): TurnModel =>
    kind.type === 'thinking_ended' ? reduceTurn(t, { ...scope, type: 'thinking_delta', delta: '' }) : t;
  return runExtras(a.events.reduce((t, kind) => reduceTurn(opened(t, kind), { ...scope, ...kind }), newTurn(a.run_id)));
}

/**
 * The session view with ended run `t` taken in: the messages it stored
 * (a snapshot taken mid-run may hold some already), the forks they
 * started, its sub-agents' transcripts, and the profile switches seen —
 * one made elsewhere before the run (`before`) and those its tools made.
 */
export function withRun(v: SessionView, t: TurnModel, before: string | null): SessionView {
  // Ids grow along a branch: what the view lacks is what came after its
  // last message (a mid-run snapshot holds the run's earlier ones), so no
  // pass over the whole history is needed.
  const last = v.messages[v.messages.length - 1]?.id ?? 0;
  const added = t.stored.filter((m) => m.id > last);
  const messages = added.length > 0 ? [...v.messages, ...added] : v.messages;
  let forks = v.forks;
  for (const group of t.forks) forks = [...forks.filter((f) => !f.some((id) => group.includes(id))), group];
  const at = Date.now();
  // A switch made elsewhere before the run is marked after the message the
  // new prompt follows; for a regenerate that was the answer now on
  // another branch, so it does not show here (nor in a fresh read).
  const prompt = added[0]?.role === 'user' ? added[0] : undefined;
  const seen = (sw: { profile: string; after_message_id: number | null }) =>
    v.switches.some((x) => x.profile === sw.profile && x.after_message_id === sw.after_message_id);
  const fresh = [...(before !== null && prompt ? [{ profile: before, after_message_id: prompt.parent_id }] : []), ...t.switches];
  // A snapshot taken mid-run may hold the run's own switches already.
  const switches = [...v.switches, ...fresh.filter((sw) => !seen(sw)).map((sw) => ({ ...sw, at }))];
  const profile = t.switches[t.switches.length - 1]?.profile ?? before ?? v.profile;
  const subs = t.subagents.map((s) => ({ ...s.view, parent_session_id: s.view.parent_session_id || v.id }));
  const subagents = [...v.subagents.filter((s) => !subs.some((x) => x.session_id === s.session_id)), ...subs];
  return { ...v, messages, forks, switches, profile, subagents, live: null };
}

/** The guard's findings on an agent's own tool results. */
export function toolFlags(a: AgentModel): Map<string, GuardFlag> {
  const into = new Map<string, GuardFlag>();
  for (const b of a.blocks) if (b.kind === 'tool' && b.call.flag) into.set(b.call.call_id, b.call.flag);
  return into;
}

/**
 * The denied and cancelled calls of an agent (its own: a sub-agent's call
 * ids are its own too, and may repeat the parent's).
 */
export function unstoredOutcomes(a: AgentModel): Map<string, 'denied' | 'cancelled'> {
  const into = new Map<string, 'denied' | 'cancelled'>();
  for (const b of a.blocks) {
    if (b.kind !== 'tool') continue;
    if (b.call.outcome === 'denied' || b.call.outcome === 'cancelled') into.set(b.call.call_id, b.call.outcome);
  }
  return into;
}

/** "1 queued message was not sent", "2 queued messages were not sent". */
export function notSent(n: number): string {
  return n === 1 ? '1 queued message was not sent' : `${n} queued messages were not sent`;
}
