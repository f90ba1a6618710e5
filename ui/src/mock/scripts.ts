// Scripted runs of the mock that need more than a timeline: tool calls that
// wait for the user's approval (the script forks at the question, into
// what follows "allow" and what follows "deny"), and a plan that streams
// and is ticked off. The other scripts stay in backend.ts.
import type { AgentEvent, MessageView, SubagentView } from '../bindings';

/** An event as a script writes it: the run's scope is added when sent. */
export type Body = Omit<AgentEvent, 'session_id' | 'run_id' | 'is_subagent'> & Partial<AgentEvent>;

/** A stored sub-agent transcript, written with the parent's stream_end. */
export type StoredSub = Omit<SubagentView, 'messages' | 'session_id'> & { messages: Partial<MessageView>[] };

/**
 * One step: an event sent `delay` ms after the previous one. A step with a
 * `gate` is an approval_requested: the run pauses after it until `approve`
 * picks the branch to go on with.
 */
export interface Step {
  ev: Body;
  delay?: number;
  gate?: { allow: Step[]; deny: Step[] };
}

/** What the model is told when the user declines (as the core says it). */
export const DENIED = 'the user declined this call, so it did not run; do not repeat it — ask the user what they want instead, or do something else';

export interface ScriptKit {
  deltas: (s: string, n?: number) => Step[];
  usage: Body;
  end: (stored?: Partial<MessageView>[], subagents?: StoredSub[]) => Step;
  /** A fresh approval request id. */
  requestId: () => string;
  model: string;
}

const ev = (b: Record<string, unknown>): Body => b as unknown as Body;

/** "write": write_file asks first; allowed it writes, denied the model says so. */
export function writeScript(k: ScriptKit): Step[] {
  const args = { path: 'notes.txt', content: 'Remember the milk.' };
  const call = [{ id: 'call_write', name: 'write_file', arguments: args }];
  const finish = (outcome: 'ok' | 'denied', output: string, answer: string): Step[] => [
    { ev: ev({ type: 'tool_event', call_id: 'call_write', name: 'write_file', outcome, output, duration_ms: outcome === 'ok' ? 3 : 0 }) },
    ...k.deltas(answer, 3),
    { ev: k.usage },
    k.end([
      { role: 'assistant', content: '', tool_calls: call },
      { role: 'tool', content: output, tool_call_id: 'call_write', tool_name: 'write_file' },
      { role: 'assistant', content: answer },
    ]),
  ];
  return [
    { ev: ev({ type: 'tool_started', call_id: 'call_write', name: 'write_file', arguments: args }) },
    {
      ev: ev({
        type: 'approval_requested', request_id: k.requestId(), call_id: 'call_write', tool: 'write_file', arguments: args,
        reach: 'Creates or replaces the file notes.txt in /home/user/work (nothing outside that folder).',
      }),
      gate: {
        allow: finish('ok', 'wrote 18 bytes to notes.txt', 'I saved your note in notes.txt.'),
        deny: finish('denied', DENIED, 'Understood, I did not write the file. Where should the note go instead?'),
      },
    },
  ];
}

/** "nested": a sub-agent's write_file asks, from inside the spawn_agent card. */
export function nestedScript(k: ScriptKit): Step[] {
  const sub = (b: Record<string, unknown>): Body =>
    ev({ ...b, is_subagent: true, session_id: 'subagent_nested1', run_id: 'subrun_nested', parent_run_id: 'x', parent_call_id: 'call_spawn2' });
  const args = { path: 'summary.md', content: '# Summary' };
  const task = { task: 'save a summary' };
  const finish = (outcome: 'ok' | 'denied', output: string, subAnswer: string): Step[] => [
    { ev: sub({ type: 'tool_event', call_id: 'call_sub_write', name: 'write_file', outcome, output, duration_ms: 2 }) },
    { ev: sub({ type: 'text_delta', delta: subAnswer }) },
    { ev: sub({ type: 'stream_end', iterations: 2 }) },
    { ev: ev({ type: 'tool_event', call_id: 'call_spawn2', name: 'spawn_agent', outcome: 'ok', output: subAnswer, duration_ms: 300 }) },
    ...k.deltas('The sub-agent is done.', 2),
    { ev: k.usage },
    k.end(
      [
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_spawn2', name: 'spawn_agent', arguments: task }] },
        { role: 'tool', content: subAnswer, tool_call_id: 'call_spawn2', tool_name: 'spawn_agent' },
        { role: 'assistant', content: 'The sub-agent is done.' },
      ],
      [
        {
          parent_call_id: 'call_spawn2',
          profile: 'Agent',
          messages: [
            { role: 'user', content: 'save a summary' },
            { role: 'assistant', content: '', tool_calls: [{ id: 'call_sub_write', name: 'write_file', arguments: args }] },
            { role: 'tool', content: output, tool_call_id: 'call_sub_write', tool_name: 'write_file' },
            { role: 'assistant', content: subAnswer },
          ],
        },
      ],
    ),
  ];
  return [
    { ev: ev({ type: 'tool_started', call_id: 'call_spawn2', name: 'spawn_agent', arguments: task }) },
    { ev: sub({ type: 'run_started', model: k.model, profile: 'Agent', context_window: 8192 }) },
    { ev: sub({ type: 'tool_started', call_id: 'call_sub_write', name: 'write_file', arguments: args }) },
    {
      ev: sub({ type: 'approval_requested', request_id: k.requestId(), call_id: 'call_sub_write', tool: 'write_file', arguments: args, reach: 'Creates or replaces summary.md in /home/user/work.' }),
      gate: { allow: finish('ok', 'wrote 9 bytes to summary.md', 'Saved summary.md.'), deny: finish('denied', DENIED, 'I was not allowed to save it.') },
    },
  ];
}

/** "plan": the plan streams in, is settled, then its steps are ticked off. */
export function planScript(k: ScriptKit): Step[] {
  const plan = '1. Look around\n2. Check the files\n3. Answer';
  return [
    { ev: ev({ type: 'plan_delta', delta: '1. Look ' }) },
    { ev: ev({ type: 'plan_delta', delta: 'around\n2. Che' }) },
    { ev: ev({ type: 'plan_delta', delta: 'ck the files\n3. Answer' }) },
    { ev: ev({ type: 'plan_ready', plan }) },
    { ev: ev({ type: 'plan_progress', done: [1] }) },
    ...k.deltas('Looked around. ', 2),
    { ev: ev({ type: 'plan_progress', done: [1, 2] }) },
    ...k.deltas('Done following the plan.', 3),
    { ev: k.usage },
    k.end(),
  ];
}
