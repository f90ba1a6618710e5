// Stored messages as the blocks the live view uses, so a sub-agent kept
// with its parent's turn (SessionView.subagents) renders nested under its
// spawn_agent card exactly as it did while streaming, at any depth.
import type { MessageView, SubagentView } from '../ipc';
import { initialSplit } from './thinkSplit';
import type { AgentModel, Block, ToolCallModel } from './turn';

/**
 * A stored call's outcome from its result message. The store keeps no
 * outcome: an error status is a failure, no result means the turn was cut
 * (or is still being written).
 */
export function storedOutcome(result: MessageView | undefined, caller: MessageView): ToolCallModel['outcome'] {
  if (result) return result.status === 'error' ? 'error' : 'ok';
  return caller.status === 'complete' ? 'pending' : 'cancelled';
}

/** Sub-agent transcripts by the spawn_agent call that started them. */
export function subagentIndex(subagents: SubagentView[]): Map<string, SubagentView> {
  return new Map(subagents.map((s) => [s.parent_call_id, s]));
}

/**
 * The sub-agent started by call `callId`, as an agent model, or null. Its
 * task (the user message) is left out: the spawn_agent card's arguments
 * already show it. `seen` stops a malformed store from recursing forever.
 */
export function storedSubagent(callId: string, index: Map<string, SubagentView>, seen: Set<string> = new Set()): AgentModel | null {
  const view = index.get(callId);
  if (!view || seen.has(callId)) return null;
  seen.add(callId);
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
          sub: storedSubagent(call.id, index, seen),
          approval: null,
        },
      });
    }
    if (m.status === 'interrupted') status = 'stopped';
    if (m.status === 'error') status = 'error';
  }
  return { blocks, split: initialSplit, status };
}
