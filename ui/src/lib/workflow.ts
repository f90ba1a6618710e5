// A `/plan` run's own story as a pure value folded from its events: the
// phases in order (each with what it produced, and while it runs, its
// sub-run's blocks), the plan waiting for the user and the answer given,
// and the reviewer's verdicts. The implement passes themselves are the
// run's ordinary blocks; this is what surrounds them.
import type { AgentEvent, PhaseOutcome, PlanChoice, Verdict, WorkflowPhase } from '../ipc';
import type { AgentModel } from './turn';

export interface PhaseModel {
  phase: WorkflowPhase;
  cycle: number;
  status: 'running' | PhaseOutcome;
  /** What it produced (findings, plan, the pass's answer, the review), or why it failed. */
  report: string;
  /** The phase's sub-run as it streams (explore, plan, review). */
  agent: AgentModel | null;
}

export interface ProposalModel {
  request_id: string;
  plan: string;
  /** Null while the plan waits for the user. */
  choice: PlanChoice | null;
}

export interface VerdictModel {
  cycle: number;
  verdict: Verdict;
  punch_list: string[];
  fixing: boolean;
  /** The reviewer's tool calls that ran: 0, its word alone. */
  checks: number;
}

export interface WorkflowModel {
  phases: PhaseModel[];
  proposal: ProposalModel | null;
  verdicts: VerdictModel[];
  /** Ids of the messages the workflow wrote for the model (the approved plan, each punch list): not the user's words. */
  fed: number[];
}

const EMPTY: WorkflowModel = { phases: [], proposal: null, verdicts: [], fed: [] };

/** The id a phase's sub-run events carry as `parent_call_id` (crates/core/src/workflow/run.rs). */
export function phaseId(phase: WorkflowPhase, cycle: number): string {
  return `phase_${phase}_${cycle}`;
}

/** True for an event of a phase's sub-run. */
export function isPhaseEvent(ev: AgentEvent): boolean {
  return ev.is_subagent === true && (ev.parent_call_id ?? '').startsWith('phase_');
}

/** True for the workflow's own events. */
export function isWorkflowEvent(ev: AgentEvent): boolean {
  return ev.type === 'phase_started' || ev.type === 'phase_ended' || ev.type === 'plan_proposed' || ev.type === 'plan_answered' || ev.type === 'review_verdict';
}

function withPhase(w: WorkflowModel, phase: WorkflowPhase, cycle: number, change: (p: PhaseModel) => PhaseModel): WorkflowModel {
  let at = -1;
  w.phases.forEach((p, i) => {
    if (p.phase === phase && p.cycle === cycle) at = i;
  });
  if (at < 0) return { ...w, phases: [...w.phases, change({ phase, cycle, status: 'running', report: '', agent: null })] };
  return { ...w, phases: w.phases.map((p, i) => (i === at ? change(p) : p)) };
}

/** Folds a workflow event into `w` (null: no workflow yet). */
export function reduceWorkflow(w: WorkflowModel | null, ev: AgentEvent): WorkflowModel {
  const cur = w ?? EMPTY;
  switch (ev.type) {
    case 'phase_started': {
      const started = withPhase(cur, ev.phase, ev.cycle, (p) => ({ ...p, status: 'running' }));
      const id = ev.message_id;
      return id != null && !started.fed.includes(id) ? { ...started, fed: [...started.fed, id] } : started;
    }
    case 'phase_ended':
      return withPhase(cur, ev.phase, ev.cycle, (p) => ({ ...p, status: ev.outcome, report: ev.report, agent: p.agent ? { ...p.agent, status: ev.outcome === 'done' ? 'done' : ev.outcome === 'stopped' ? 'stopped' : 'error' } : null }));
    case 'plan_proposed':
      return { ...cur, proposal: { request_id: ev.request_id, plan: ev.plan, choice: null } };
    case 'plan_answered':
      return cur.proposal?.request_id === ev.request_id ? { ...cur, proposal: { ...cur.proposal, choice: ev.choice } } : cur;
    case 'review_verdict':
      return { ...cur, verdicts: [...cur.verdicts, { cycle: ev.cycle, verdict: ev.verdict, punch_list: [...ev.punch_list], fixing: ev.fixing, checks: ev.checks ?? 0 }] };
    default:
      return cur;
  }
}

/** Folds an event of a phase's sub-run into that phase's blocks with `apply` (the turn's own agent fold). */
export function reducePhaseRun(w: WorkflowModel | null, ev: AgentEvent, apply: (a: AgentModel, ev: AgentEvent) => AgentModel): WorkflowModel {
  const cur = w ?? EMPTY;
  const at = cur.phases.findIndex((p) => phaseId(p.phase, p.cycle) === ev.parent_call_id);
  if (at < 0) return cur;
  return {
    ...cur,
    phases: cur.phases.map((p, i) => (i === at ? { ...p, agent: apply(p.agent ?? { run_id: ev.run_id, blocks: [], status: 'running' }, ev) } : p)),
  };
}

/** At the run's end nothing waits: a phase still running was cut, a plan still asked was withdrawn. */
export function closeWorkflow(w: WorkflowModel, how: 'done' | 'stopped' | 'error'): WorkflowModel {
  const cut: PhaseOutcome = how === 'error' ? 'failed' : 'stopped';
  return {
    ...w,
    phases: w.phases.map((p) => (p.status === 'running' ? { ...p, status: cut } : p)),
    proposal: w.proposal && w.proposal.choice === null ? { ...w.proposal, choice: 'cancelled' } : w.proposal,
  };
}

/** What a phase is called on its card. */
export function phaseLabel(p: PhaseModel): string {
  switch (p.phase) {
    case 'explore': return 'Explore';
    case 'plan': return 'Plan';
    case 'implement': return p.cycle > 1 ? `Implement · fix ${p.cycle - 1}` : 'Implement';
    case 'review': return p.cycle > 1 ? `Review · pass ${p.cycle}` : 'Review';
  }
}
