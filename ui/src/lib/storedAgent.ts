// Stored messages as the blocks the live view uses, so a sub-agent kept
// with its parent's turn (SessionView.subagents) renders nested under its
// spawn_agent card exactly as it did while streaming, at any depth.
import type { MessageView, SubagentView } from '../ipc';
import type { AgentModel, Block, ToolCallModel } from './turn';

/**
 * A stored call's outcome from its result message. The store keeps no
 * outcome: the result's status says it (error: the call failed;
 * interrupted: a stop cancelled it); no result means the turn was cut (or
 * is still being written).
 */
export function storedOutcome(result: MessageView | undefined, caller: MessageView): ToolCallModel['outcome'] {
  if (result) return result.status === 'error' ? 'error' : result.status === 'interrupted' ? 'cancelled' : 'ok';
  return caller.status === 'complete' ? 'pending' : 'cancelled';
}

/**
 * Where a transcript hangs: the store keeps the parent's session and run
 * with it. Read defensively: SessionView.subagents does not carry them yet
 * (an older shell); then the task decides between transcripts of one id.
 */
interface ParentScope {
  parent_run_id?: string | null;
  parent_session_id?: string | null;
}

/**
 * Sub-agent transcripts by the spawn_agent call that started them (ids
 * repeat: all of them, in store order), and the runs of the branch shown
 * that made a spawn_agent call of that id, in order.
 */
export interface SubagentIndex {
  byCall: Map<string, SubagentView[]>;
  runsByCall: Map<string, string[]>;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

export function subagentIndex(subagents: SubagentView[], messages: MessageView[] = []): SubagentIndex {
  const byCall = new Map<string, SubagentView[]>();
  for (const s of subagents) push(byCall, s.parent_call_id, s);
  const runsByCall = new Map<string, string[]>();
  for (const m of messages) {
    if (m.role !== 'assistant' || !m.run_id) continue;
    for (const c of m.tool_calls) if (c.name === 'spawn_agent' && !runsByCall.get(c.id)?.includes(m.run_id)) push(runsByCall, c.id, m.run_id);
  }
  return { byCall, runsByCall };
}

/** The call that is asked about: its id, its arguments, and the agent that made it. */
export interface CallScope {
  callId: string;
  /** The call's arguments (spawn_agent's `task` tells twins apart). */
  args: unknown;
  /** The run of the stored answer holding the call (a top-level call). */
  runId?: string | null;
  /** The sub-agent session holding the call (a nested call). */
  sessionId?: string | null;
}

function taskOf(args: unknown): string | null {
  const t = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>).task : undefined;
  return typeof t === 'string' ? t : null;
}

/** The transcript started by this call: one of those with its id, in its answer (run) or parent sub-agent. */
function pick(scope: CallScope, index: SubagentIndex, seen: Set<string>): SubagentView | null {
  let list = (index.byCall.get(scope.callId) ?? []).filter((s) => !seen.has(s.session_id));
  if (list.length === 0) return null;
  // With the parent recorded, only the transcript of this very call.
  if (scope.sessionId) list = list.filter((s) => ((s as ParentScope).parent_session_id ?? scope.sessionId) === scope.sessionId);
  else if (scope.runId) list = list.filter((s) => ((s as ParentScope).parent_run_id ?? scope.runId) === scope.runId);
  if (list.length > 1) {
    // Several left (no parent recorded): the one given this call's task.
    const task = taskOf(scope.args);
    const same = list.filter((s) => s.messages.find((m) => m.role === 'user')?.content === task);
    if (same.length > 0) list = same;
  }
  if (list.length > 1 && scope.runId) {
    // Still several, one per run that made such a call: the store keeps
    // them in the order they ran.
    const runs = index.runsByCall.get(scope.callId) ?? [];
    const at = runs.indexOf(scope.runId);
    if (runs.length === list.length && at >= 0) return list[at] ?? null;
  }
  return list[list.length - 1] ?? null;
}

/**
 * The sub-agent started by the call in `scope`, as an agent model, or
 * null. Its task (the user message) is left out: the spawn_agent card's
 * arguments already show it. `seen` (transcripts on the way down) stops a
 * malformed store from recursing forever.
 */
export function storedSubagent(scope: CallScope, index: SubagentIndex, seen: Set<string> = new Set()): AgentModel | null {
  const view = pick(scope, index, seen);
  if (!view) return null;
  const inner = new Set(seen).add(view.session_id);
  const results = new Map<string, MessageView>();
  for (const m of view.messages) if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, m);
  const blocks: Block[] = [];
  let status: AgentModel['status'] = 'done';
  for (const m of view.messages) {
    if (m.role !== 'assistant') continue;
    if (m.thinking) blocks.push({ kind: 'thinking', text: m.thinking });
    if (m.content) blocks.push({ kind: 'text', text: m.content });
    for (const call of m.tool_calls) {
      const result = results.get(call.id);
      blocks.push({
        kind: 'tool',
        call: {
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
          outcome: storedOutcome(result, m),
          output: result?.content ?? null,
          duration_ms: null,
          sub: call.name === 'spawn_agent' ? storedSubagent({ callId: call.id, args: call.arguments, sessionId: view.session_id }, index, inner) : null,
          approval: null,
          flag: null,
        },
      });
    }
    if (m.status === 'interrupted') status = 'stopped';
    if (m.status === 'error') status = 'error';
  }
  return { run_id: '', blocks, status };
}
