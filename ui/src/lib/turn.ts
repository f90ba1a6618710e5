// The in-progress answer as a pure value built from AgentEvents. Updates are
// immutable (new objects along the changed path) so the transcript can hold
// it in `$state.raw` and Svelte re-renders only the blocks that changed.
// Sub-agent events nest under the tool card of the `spawn_agent` call that
// started them (`parent_call_id`), at any depth.
import type { AgentEvent, ErrorInfo, JsonValue, Usage } from '../ipc';
import { flushThink, initialSplit, splitThink, type ThinkSplitState } from './thinkSplit';

export type Block =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string }
  | { kind: 'plan'; plan: string }
  | { kind: 'tool'; call: ToolCallModel }
  /** A queued message the run took in (`queued_message_sent`). */
  | { kind: 'user'; text: string; queueId: string };

export interface AgentModel {
  blocks: Block[];
  split: ThinkSplitState;
  status: 'running' | 'done' | 'stopped' | 'error';
}

export interface ToolCallModel {
  call_id: string;
  name: string;
  arguments: JsonValue;
  outcome: 'pending' | 'ok' | 'error' | 'cancelled';
  output: string | null;
  duration_ms: number | null;
  /** The sub-agent this call started (spawn_agent), once it sends events. */
  sub: AgentModel | null;
}

export interface TurnModel extends AgentModel {
  run_id: string;
  model: string;
  profile: string;
  context_window: number;
  /** Usage of each model call of the main agent, in order. */
  usage: Usage[];
  error: ErrorInfo | null;
  partial_text: string;
}

export function newTurn(run_id: string): TurnModel {
  return {
    run_id,
    model: '',
    profile: '',
    context_window: 0,
    blocks: [],
    split: initialSplit,
    status: 'running',
    usage: [],
    error: null,
    partial_text: '',
  };
}

function emptyAgent(): AgentModel {
  return { blocks: [], split: initialSplit, status: 'running' };
}

function appendText(blocks: Block[], kind: 'text' | 'thinking', text: string): Block[] {
  const last = blocks[blocks.length - 1];
  if (last && last.kind === kind) {
    return [...blocks.slice(0, -1), { kind, text: last.text + text }];
  }
  return [...blocks, { kind, text }];
}

/** Applies an event meant for this agent (not a nested one). */
function applyToAgent<A extends AgentModel>(a: A, ev: AgentEvent): A {
  switch (ev.type) {
    case 'thinking_delta':
      return { ...a, blocks: appendText(a.blocks, 'thinking', ev.delta) };
    case 'text_delta': {
      const { state, pieces } = splitThink(a.split, ev.delta);
      let blocks = a.blocks;
      for (const p of pieces) blocks = appendText(blocks, p.thinking ? 'thinking' : 'text', p.text);
      return { ...a, split: state, blocks };
    }
    case 'plan_ready':
      return { ...a, blocks: [...a.blocks, { kind: 'plan', plan: ev.plan }] };
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
        };
        return { ...a, blocks: [...a.blocks, { kind: 'tool', call: filled(c) }] };
      }
      return {
        ...a,
        blocks: a.blocks.map((b) => (b.kind === 'tool' && b.call.call_id === ev.call_id ? { kind: 'tool', call: filled(b.call) } : b)),
      };
    }
    case 'queued_message_sent':
      return { ...a, blocks: [...a.blocks, { kind: 'user', text: ev.text, queueId: ev.queue_id }] };
    case 'stream_end':
    case 'stream_stopped':
    case 'error': {
      let blocks = a.blocks;
      for (const p of flushThink(a.split)) blocks = appendText(blocks, p.thinking ? 'thinking' : 'text', p.text);
      const status = ev.type === 'stream_end' ? 'done' : ev.type === 'stream_stopped' ? 'stopped' : 'error';
      return { ...a, blocks, split: initialSplit, status };
    }
    default:
      return a;
  }
}

/** Routes an event to the agent it belongs to, nesting sub-agents. Returns null if no card matches. */
function applyNested<A extends AgentModel>(a: A, parentCallId: string, ev: AgentEvent): A | null {
  let changed = false;
  const blocks = a.blocks.map((b): Block => {
    if (changed || b.kind !== 'tool') return b;
    if (b.call.call_id === parentCallId) {
      changed = true;
      return { kind: 'tool', call: { ...b.call, sub: applyToAgent(b.call.sub ?? emptyAgent(), ev) } };
    }
    if (b.call.sub) {
      const sub = applyNested(b.call.sub, parentCallId, ev);
      if (sub) {
        changed = true;
        return { kind: 'tool', call: { ...b.call, sub } };
      }
    }
    return b;
  });
  return changed ? { ...a, blocks } : null;
}

/** Folds one event into the turn. */
export function reduceTurn(t: TurnModel, ev: AgentEvent): TurnModel {
  if (ev.is_subagent && ev.parent_call_id) {
    // Sub-agent usage, run_started and terminal events stay inside the card.
    return applyNested(t, ev.parent_call_id, ev) ?? t;
  }
  switch (ev.type) {
    case 'run_started':
      return { ...t, run_id: ev.run_id, model: ev.model, profile: ev.profile, context_window: ev.context_window };
    case 'usage':
      return { ...t, usage: [...t.usage, ev.usage] };
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
export function usageSummary(usage: Usage[]): { tps: number | null; prompt: number; completion: number } | null {
  if (usage.length === 0) return null;
  let prompt = 0;
  let completion = 0;
  let evalMs = 0;
  let tpsLast: number | null = null;
  for (const u of usage) {
    prompt += u.prompt_tokens ?? 0;
    completion += u.completion_tokens ?? 0;
    evalMs += u.eval_ms ?? 0;
    if (u.tokens_per_second != null) tpsLast = u.tokens_per_second;
  }
  const tps = evalMs > 0 ? (completion * 1000) / evalMs : tpsLast;
  return { tps, prompt, completion };
}
