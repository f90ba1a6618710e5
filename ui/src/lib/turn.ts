// The in-progress answer as a pure value built from AgentEvents. Updates are
// immutable (new objects along the changed path) so the transcript can hold
// it in `$state.raw` and Svelte re-renders only the blocks that changed.
// Sub-agent events nest under the tool card of the `spawn_agent` call that
// started them, at any depth; so do their approval requests, which land on
// the card of the call that waits. Call ids come from the model and repeat
// (across runs, and a sub-agent numbers its calls afresh), so the card is
// the one with `parent_call_id` in the agent whose run is `parent_run_id`.
// What the run says about itself (compactions, the input guard's
// findings) is kept here too, so replaying the run's log restores it; its
// context budget is the session's context meter's
// (state/contextMeter.svelte.ts), which replays the same log.
import { reduceProgress, type Progress } from './progress';
import type { AgentEvent, ApprovalDecision, ErrorInfo, JsonValue, MessageView, SubagentView, ToolOutcome, Usage } from '../ipc';
import { closeWorkflow, isPhaseEvent, isWorkflowEvent, reducePhaseRun, reduceWorkflow, type WorkflowModel } from './workflow';

export type Block =
  | { kind: 'text'; text: string }
  /** `ms`: how long the model reasoned (`thinking_ended`), once its answer began. */
  | { kind: 'thinking'; text: string; ms?: number }
  /** The plan, streamed by plan_delta, replaced by plan_ready; `done`: step numbers from plan_progress. */
  | { kind: 'plan'; plan: string; done: number[] }
  | { kind: 'tool'; call: ToolCallModel }
  /** A queued message the run took in (`queued_message_sent`). */
  | { kind: 'user'; text: string; queueId: string };

export interface AgentModel {
  /** The agent's run ('' when unknown: a stored transcript, or before run_started). */
  run_id: string;
  blocks: Block[];
  status: 'running' | 'done' | 'stopped' | 'error';
}

export interface ToolCallModel {
  call_id: string;
  name: string;
  arguments: JsonValue;
  outcome: 'pending' | ToolOutcome;
  output: string | null;
  duration_ms: number | null;
  /** The sub-agent this call started (spawn_agent), once it sends events. */
  sub: AgentModel | null;
  /** The question put to the user before this call runs, if any. */
  approval: ApprovalModel | null;
  /** The input guard's finding on this call's result, if any. */
  flag: GuardFlag | null;
}

/** What the input guard found in a text (`input_flagged`). */
export interface GuardFlag {
  patterns: string[];
  /** Refused (`block` mode): a message not answered, a result withheld. */
  blocked: boolean;
}

/** Older messages summarized to make room (`context_compacted`). */
export interface Compaction {
  summarized: number;
  tokens_before: number;
  tokens_after: number;
}

export interface ApprovalModel {
  request_id: string;
  tool: string;
  arguments: JsonValue;
  /** What the call can touch, in plain words. */
  reach: string;
  /** "Allow for this session" is offered (not for run_shell: it asks every time). */
  session_allowed: boolean;
  /** The louder warning: a file that runs code later, a symlinked folder (never covered by a pre-approval). */
  warning: string | null;
  /** Null while the run waits for the user. */
  decision: ApprovalDecision | null;
}

export interface TurnModel extends AgentModel {
  model: string;
  /** The host the run's calls went to: run_started's, then the last failover's ('' when unknown). */
  host: string;
  profile: string;
  context_window: number;
  /** Usage of each model call of the main agent, in order. */
  usage: Usage[];
  error: ErrorInfo | null;
  partial_text: string;
  compactions: Compaction[];
  /** Tool servers (MCP) the run went on without (`tools_unavailable`). */
  unavailable: ToolsUnavailable[];
  /** Hosts the run moved away from before any output (`host_failover`). */
  failovers: HostFailover[];
  /** The guard's finding on the user's message this run answers. */
  userFlag: GuardFlag | null;
  /** What the run stored, in order (`message_stored`): the session view takes them in when the run ends. */
  stored: MessageView[];
  /** Forks the run's messages started (`message_stored`'s siblings). */
  forks: number[][];
  /** Profile switches a tool made during the run (`profile_switched`). */
  switches: { profile: string; after_message_id: number | null }[];
  /**
   * The run's sub-agents as the store keeps them (their own run_started
   * and message_stored), with the run of each; `parent_session_id` ''
   * for the session the run belongs to.
   */
  subagents: { run_id: string; view: SubagentView }[];
  /** A `/plan` run's phases, plan and verdicts (null for any other run). */
  workflow: WorkflowModel | null;
  /** What the model is doing now (lib/progress.ts); null while nothing is asked of it. */
  progress: Progress | null;
}

/** The profile's host could not be reached, so the run went on with the next. */
export interface HostFailover {
  from: string;
  to: string;
  reason: string;
}

/** A tool server (MCP) a run went on without, and why. */
export interface ToolsUnavailable {
  server: string;
  reason: string;
}

export function newTurn(run_id: string): TurnModel {
  return {
    run_id,
    model: '',
    host: '',
    profile: '',
    context_window: 0,
    blocks: [],
    status: 'running',
    usage: [],
    error: null,
    partial_text: '',
    compactions: [],
    unavailable: [],
    failovers: [],
    userFlag: null,
    stored: [],
    forks: [],
    switches: [],
    subagents: [],
    workflow: null,
    progress: null,
  };
}

/** A sub-agent's transcript as the store keeps it, grown from its run_started and message_stored. */
function keepSubagent(t: TurnModel, ev: AgentEvent & { parent_call_id: string }): TurnModel {
  if (ev.type === 'run_started') {
    if (t.subagents.some((s) => s.view.session_id === ev.session_id)) return t;
    // A nested one hangs under the sub-agent whose run spawned it.
    const parent = t.subagents.find((s) => s.run_id === ev.parent_run_id);
    const view: SubagentView = {
      parent_session_id: parent?.view.session_id ?? '',
      parent_run_id: ev.parent_run_id ?? t.run_id,
      parent_call_id: ev.parent_call_id,
      session_id: ev.session_id,
      profile: ev.profile,
      messages: [],
    };
    return { ...t, subagents: [...t.subagents, { run_id: ev.run_id, view }] };
  }
  if (ev.type !== 'message_stored') return t;
  const message = ev.message;
  return {
    ...t,
    subagents: t.subagents.map((s) =>
      s.view.session_id === ev.session_id && !s.view.messages.some((m) => m.id === message.id) ? { ...s, view: { ...s.view, messages: [...s.view.messages, message] } } : s,
    ),
  };
}

function emptyAgent(run_id: string): AgentModel {
  return { run_id, blocks: [], status: 'running' };
}

function appendText(blocks: Block[], kind: 'text' | 'thinking', text: string): Block[] {
  const last = blocks[blocks.length - 1];
  if (last && last.kind === kind) {
    return [...blocks.slice(0, -1), { kind, text: last.text + text }];
  }
  return [...blocks, { kind, text }];
}

/** The agent with its plan block changed (created by the first plan event). */
function withPlan<A extends AgentModel>(a: A, change: (p: Extract<Block, { kind: 'plan' }>) => Block): A {
  const at = a.blocks.findIndex((b) => b.kind === 'plan');
  if (at < 0) return { ...a, blocks: [...a.blocks, change({ kind: 'plan', plan: '', done: [] })] };
  return { ...a, blocks: a.blocks.map((b, i) => (i === at && b.kind === 'plan' ? change(b) : b)) };
}

/** The agent with `f` applied to each of its own tool calls (not nested ones). */
function mapCalls<A extends AgentModel>(a: A, f: (c: ToolCallModel) => ToolCallModel): A {
  return { ...a, blocks: a.blocks.map((b) => (b.kind === 'tool' ? { kind: 'tool', call: f(b.call) } : b)) };
}

/**
 * At the end of a run nothing waits any more, nested calls included: an
 * unanswered question is withdrawn (the backend drops it on Stop), and
 * after a stop or an error a call still pending never finished.
 */
function closeCalls(blocks: Block[], cut: boolean): Block[] {
  return blocks.map((b): Block => {
    if (b.kind !== 'tool') return b;
    const c = b.call;
    const approval = c.approval && c.approval.decision === null ? null : c.approval;
    const outcome = cut && c.outcome === 'pending' ? 'cancelled' : c.outcome;
    const sub = c.sub && c.sub.status === 'running' ? { ...c.sub, blocks: closeCalls(c.sub.blocks, cut), status: cut ? ('stopped' as const) : c.sub.status } : c.sub;
    if (approval === c.approval && outcome === c.outcome && sub === c.sub) return b;
    return { kind: 'tool', call: { ...c, approval, outcome, sub } };
  });
}

/** Applies an event meant for this agent (not a nested one). */
function applyToAgent<A extends AgentModel>(a: A, ev: AgentEvent): A {
  switch (ev.type) {
    case 'thinking_delta':
      return { ...a, blocks: appendText(a.blocks, 'thinking', ev.delta) };
    case 'thinking_ended': {
      let at = a.blocks.length - 1;
      while (at >= 0 && a.blocks[at]?.kind !== 'thinking') at--;
      if (at < 0) return a;
      return { ...a, blocks: a.blocks.map((b, i) => (i === at && b.kind === 'thinking' ? { ...b, ms: ev.ms } : b)) };
    }
    // Reasoning a model writes inline in tags arrives as thinking_delta:
    // the core splits it out (crates/core/src/think_tags.rs).
    case 'text_delta':
      return { ...a, blocks: appendText(a.blocks, 'text', ev.delta) };
    case 'text_replaced': {
      // The core took back something it had shown: the current answer's
      // text anew, in place of every text block since the answer began
      // (its reasoning may have cut it in two).
      let start = a.blocks.length;
      while (start > 0 && (a.blocks[start - 1]?.kind === 'text' || a.blocks[start - 1]?.kind === 'thinking')) start--;
      // Cleared (what was shown was reasoning, which follows): no empty
      // block left behind.
      if (ev.text === '') return { ...a, blocks: a.blocks.filter((b, i) => i < start || b.kind !== 'text') };
      const first = a.blocks.findIndex((b, i) => i >= start && b.kind === 'text');
      if (first < 0) return { ...a, blocks: [...a.blocks, { kind: 'text', text: ev.text }] };
      const blocks = a.blocks.flatMap((b, i): Block[] => (i < start || b.kind !== 'text' ? [b] : i === first ? [{ kind: 'text', text: ev.text }] : []));
      return { ...a, blocks };
    }
    case 'plan_delta':
      return withPlan(a, (p) => ({ ...p, plan: p.plan + ev.delta }));
    case 'plan_ready':
      return withPlan(a, (p) => ({ ...p, plan: ev.plan }));
    case 'plan_progress':
      return withPlan(a, (p) => ({ ...p, done: [...ev.done] }));
    case 'approval_requested': {
      const approval: ApprovalModel = {
        request_id: ev.request_id,
        tool: ev.tool,
        arguments: ev.arguments,
        reach: ev.reach,
        session_allowed: ev.session_allowed,
        warning: ev.warning ?? null,
        decision: null,
      };
      if (!a.blocks.some((b) => b.kind === 'tool' && b.call.call_id === ev.call_id)) {
        // Asked before its card exists (should not happen): still ask.
        const call: ToolCallModel = { call_id: ev.call_id, name: ev.tool, arguments: ev.arguments, outcome: 'pending', output: null, duration_ms: null, sub: null, approval, flag: null };
        return { ...a, blocks: [...a.blocks, { kind: 'tool', call }] };
      }
      return mapCalls(a, (c) => (c.call_id === ev.call_id ? { ...c, approval } : c));
    }
    case 'approval_resolved':
      return mapCalls(a, (c) => (c.approval?.request_id === ev.request_id ? { ...c, approval: { ...c.approval, decision: ev.decision } } : c));
    case 'tool_started':
      return {
        ...a,
        blocks: [
          ...a.blocks,
          {
            kind: 'tool',
            call: {
              call_id: ev.call_id,
              name: ev.name,
              arguments: ev.arguments,
              outcome: 'pending',
              output: null,
              duration_ms: null,
              sub: null,
              approval: null,
              flag: null,
            },
          },
        ],
      };
    case 'tool_event': {
      const found = a.blocks.some((b) => b.kind === 'tool' && b.call.call_id === ev.call_id);
      const filled = (c: ToolCallModel): ToolCallModel => ({
        ...c,
        name: ev.name,
        outcome: ev.outcome,
        output: ev.output,
        duration_ms: ev.duration_ms,
      });
      if (!found) {
        // A result without a start event (should not happen): still show it.
        const c: ToolCallModel = {
          call_id: ev.call_id,
          name: ev.name,
          arguments: null,
          outcome: 'pending',
          output: null,
          duration_ms: null,
          sub: null,
          approval: null,
          flag: null,
        };
        return { ...a, blocks: [...a.blocks, { kind: 'tool', call: filled(c) }] };
      }
      return {
        ...a,
        blocks: a.blocks.map((b) => (b.kind === 'tool' && b.call.call_id === ev.call_id ? { kind: 'tool', call: filled(b.call) } : b)),
      };
    }
    case 'input_flagged': {
      // A tool result: the card of that call (the user's message is the turn's, see reduceTurn).
      if (ev.source !== 'tool' || ev.call_id === null) return a;
      const flag: GuardFlag = { patterns: [...ev.patterns], blocked: ev.blocked };
      return mapCalls(a, (c) => (c.call_id === ev.call_id ? { ...c, flag } : c));
    }
    case 'queued_message_sent':
      return { ...a, blocks: [...a.blocks, { kind: 'user', text: ev.text, queueId: ev.queue_id }] };
    case 'stream_end':
    case 'stream_stopped':
    case 'error': {
      const blocks = closeCalls(a.blocks, ev.type !== 'stream_end');
      const status = ev.type === 'stream_end' ? 'done' : ev.type === 'stream_stopped' ? 'stopped' : 'error';
      return { ...a, blocks, status };
    }
    default:
      return a;
  }
}

/** The agent with the sub-agent of its own call `callId` changed by `ev` (null: no such card). */
function applyToSub<A extends AgentModel>(a: A, callId: string, ev: AgentEvent): A | null {
  const at = a.blocks.findIndex((b) => b.kind === 'tool' && b.call.call_id === callId);
  const b = a.blocks[at];
  if (!b || b.kind !== 'tool') return null;
  const sub = applyToAgent(b.call.sub ?? emptyAgent(ev.run_id), ev);
  return { ...a, blocks: a.blocks.map((x, i): Block => (i === at ? { kind: 'tool', call: { ...b.call, sub } } : x)) };
}

/**
 * Routes a sub-agent event to the agent it belongs to: the sub-agent of
 * call `callId` of the agent whose run is `runId` (with no `runId`, from
 * an older core: of the first card with that call id). Null if none matches.
 */
function applyNested<A extends AgentModel>(a: A, runId: string | null, callId: string, ev: AgentEvent): A | null {
  if (runId === null || a.run_id === runId) {
    const own = applyToSub(a, callId, ev);
    if (own || runId !== null) return own;
  }
  let changed = false;
  const blocks = a.blocks.map((b): Block => {
    if (changed || b.kind !== 'tool' || !b.call.sub) return b;
    const sub = applyNested(b.call.sub, runId, callId, ev);
    if (!sub) return b;
    changed = true;
    return { kind: 'tool', call: { ...b.call, sub } };
  });
  return changed ? { ...a, blocks } : null;
}

/** Folds one event into the turn. */
export function reduceTurn(t: TurnModel, ev: AgentEvent): TurnModel {
  // A `/plan` phase's sub-run streams into its phase card; the store keeps
  // its report, not its transcript.
  if (isPhaseEvent(ev)) return { ...t, workflow: reducePhaseRun(t.workflow, ev, applyToAgent) };
  if (isWorkflowEvent(ev)) return { ...t, workflow: reduceWorkflow(t.workflow, ev) };
  const ran = reduceRun(t, ev);
  const progress = ev.is_subagent ? ran.progress : reduceProgress(ran.progress, ev, Date.now());
  const next = progress === ran.progress ? ran : { ...ran, progress };
  if (!next.workflow || !isTerminal(ev)) return next;
  return { ...next, workflow: closeWorkflow(next.workflow, ev.type === 'stream_end' ? 'done' : ev.type === 'stream_stopped' ? 'stopped' : 'error') };
}

/** Folds one event of the run itself (or of a sub-agent) into the turn. */
function reduceRun(t: TurnModel, ev: AgentEvent): TurnModel {
  if (ev.is_subagent && ev.parent_call_id) {
    const kept = keepSubagent(t, { ...ev, parent_call_id: ev.parent_call_id });
    // Sub-agent usage, run_started and terminal events stay inside the card.
    return applyNested(kept, ev.parent_run_id ?? null, ev.parent_call_id, ev) ?? kept;
  }
  switch (ev.type) {
    case 'run_started':
      return { ...t, run_id: ev.run_id, model: ev.model, host: ev.host ?? '', profile: ev.profile, context_window: ev.context_window };
    case 'usage':
      return { ...t, usage: [...t.usage, ev.usage] };
    case 'host_failover':
      return { ...t, host: ev.to, failovers: [...t.failovers, { from: ev.from, to: ev.to, reason: ev.reason }] };
    case 'tools_unavailable':
      return { ...t, unavailable: [...t.unavailable, { server: ev.server, reason: ev.reason }] };
    case 'context_compacted':
      return { ...t, compactions: [...t.compactions, { summarized: ev.summarized, tokens_before: ev.tokens_before, tokens_after: ev.tokens_after }] };
    case 'input_flagged':
      if (ev.source === 'user') return { ...t, userFlag: { patterns: [...ev.patterns], blocked: ev.blocked } };
      return applyToAgent(t, ev);
    case 'message_stored':
      // A log replayed after a snapshot may repeat what is known: once each.
      if (t.stored.some((m) => m.id === ev.message.id)) return t;
      return { ...t, stored: [...t.stored, ev.message], forks: ev.siblings?.length ? [...t.forks, ev.siblings] : t.forks };
    case 'profile_switched':
      return { ...t, profile: ev.profile, switches: [...t.switches, { profile: ev.profile, after_message_id: ev.after_message_id }] };
    case 'stream_stopped':
      return { ...applyToAgent(t, ev), partial_text: ev.partial_text };
    case 'error':
      return { ...applyToAgent(t, ev), error: ev.error, partial_text: ev.partial_text };
    default:
      return applyToAgent(t, ev);
  }
}

export function isTerminal(ev: AgentEvent): boolean {
  return !ev.is_subagent && (ev.type === 'stream_end' || ev.type === 'stream_stopped' || ev.type === 'error');
}

/** The answer's text so far (for "partial text kept" and copy). */
export function turnText(a: AgentModel): string {
  return a.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('');
}

/** Tokens/s and counts summed over the model calls of one answer. */
/** Fewest timed tokens and milliseconds a speed is worth showing for: a tool call of a few tokens in a millisecond says nothing about the model. */
const MIN_TIMED_TOKENS = 16;
const MIN_TIMED_MS = 100;

export function usageSummary(usage: Usage[]): { tps: number | null; prompt: number; completion: number } | null {
  if (usage.length === 0) return null;
  let prompt = 0;
  let completion = 0;
  // The speed counts only calls that report both their tokens and their
  // generation time: tokens of an untimed call over another call's time
  // gave figures such as 32,897 tok/s.
  let timedTokens = 0;
  let evalMs = 0;
  for (const u of usage) {
    prompt += u.prompt_tokens ?? 0;
    completion += u.completion_tokens ?? 0;
    if (u.completion_tokens != null && u.eval_ms != null && u.eval_ms > 0) {
      timedTokens += u.completion_tokens;
      evalMs += u.eval_ms;
    }
  }
  let tps: number | null = null;
  if (timedTokens >= MIN_TIMED_TOKENS && evalMs >= MIN_TIMED_MS) tps = (timedTokens * 1000) / evalMs;
  else if (usage.length === 1 && (usage[0]?.completion_tokens ?? 0) >= MIN_TIMED_TOKENS) tps = usage[0]?.tokens_per_second ?? null;
  return { tps, prompt, completion };
}
