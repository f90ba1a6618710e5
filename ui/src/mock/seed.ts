// Sub-agent transcripts kept as the store keeps them, and the stored data
// some tests start from (`?subagents=1`).
import type { MessageView } from '../bindings';
import type { MockBackend } from './backend';
import type { Sess, StoredSubagent } from './records';
import type { StoredSub } from './scripts';

/**
 * Keeps sub-agent transcripts with their session (ids as the store gives
 * them): those of run `runId`'s own calls, and (`parent`: the index of
 * the transcript they hang under) nested ones.
 */
export function storeSubagents(s: Sess, runId: string, subs: StoredSub[], nextId: () => number): { run_id: string; view: StoredSubagent }[] {
  const stored: StoredSubagent[] = [];
  const runs: string[] = [];
  const own = (id: string) => `${id}@${runId}`;
  for (const sub of subs) {
    let parent: number | null = null;
    const messages = sub.messages.map((m): MessageView => {
      const id = nextId();
      const out: MessageView = {
        id, parent_id: parent, run_id: null, role: m.role ?? 'assistant', content: m.content ?? '', thinking: m.thinking ?? null,
        tool_calls: m.tool_calls ?? [], tool_call_id: m.tool_call_id ?? null, tool_name: m.tool_name ?? null, status: m.status ?? 'complete', created_at: Date.now(), attachments: [],
      };
      parent = id;
      return out;
    });
    const above = sub.parent !== undefined ? stored[sub.parent] : undefined;
    const session = sub.session_id ? own(sub.session_id) : `subagent_${sub.parent_call_id}_${nextId()}`;
    const t: StoredSubagent = {
      parent_call_id: sub.parent_call_id, session_id: session, profile: sub.profile, messages,
      parent_session_id: above?.session_id ?? s.id,
      parent_run_id: above ? (sub.parent_run_id ? own(sub.parent_run_id) : `${above.session_id}_run`) : runId,
    };
    stored.push(t);
    runs.push(sub.run_id ? own(sub.run_id) : `${session}_run`);
    s.subagents.push(t);
  }
  return stored.map((view, i) => ({ run_id: runs[i]!, view }));
}

/** A stored turn whose spawn_agent's sub-agent spawned one more, both kept. */
export function seedSubagents(m: MockBackend): void {
  const s = m.addSession('Research');
  m.addMessage(s, 'user', 'Research the docs');
  m.addMessage(s, 'assistant', '', { run_id: 'r_seed', tool_calls: [{ id: 'call_research', name: 'spawn_agent', arguments: { task: 'read the docs' } }] });
  m.addMessage(s, 'tool', 'Docs read: they say hi.', { run_id: 'r_seed', tool_call_id: 'call_research', tool_name: 'spawn_agent' });
  m.addMessage(s, 'assistant', 'The docs say hi.', { run_id: 'r_seed' });
  storeSubagents(s, 'r_seed', [
    { parent_call_id: 'call_research', profile: 'Agent', messages: [
      { role: 'user', content: 'read the docs' },
      { role: 'assistant', content: 'Reading.', thinking: 'Start with the index.', tool_calls: [{ id: 'call_docs', name: 'read_file', arguments: { path: 'docs/index.md' } }, { id: 'call_deep', name: 'spawn_agent', arguments: { task: 'check the links' } }] },
      { role: 'tool', content: '# Index: hi', tool_call_id: 'call_docs', tool_name: 'read_file' },
      { role: 'tool', content: 'All links work.', tool_call_id: 'call_deep', tool_name: 'spawn_agent' },
      { role: 'assistant', content: 'Docs read: they say hi.' },
    ] },
    { parent_call_id: 'call_deep', parent: 0, parent_run_id: 'r_seed_sub', profile: 'Agent', messages: [
      { role: 'user', content: 'check the links' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_links', name: 'run_shell', arguments: { command: 'check-links docs' } }] },
      { role: 'tool', content: 'error: check-links not found', tool_call_id: 'call_links', tool_name: 'run_shell', status: 'error' },
      { role: 'assistant', content: 'All links work.' },
    ] },
  ], () => m.nextId++);
}

/**
 * A stored planned turn as a restarted app finds it (`?planned=1`): the
 * plan joined to the first answer, a read, a write the user allowed, and
 * the events the core kept with the run.
 */
export function seedPlanned(m: MockBackend): void {
  const s = m.addSession('Planned work');
  const plan = '1. Read notes.md\n2. Write summary.md';
  m.addMessage(s, 'user', 'Summarize my notes into summary.md');
  m.addMessage(s, 'assistant', plan, {
    run_id: 'r_plan',
    thinking: 'Read first, then write.',
    tool_calls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.md' } }, { id: 'call_write', name: 'write_file', arguments: { path: 'summary.md', content: 'short' } }],
  });
  m.addMessage(s, 'tool', 'the notes', { run_id: 'r_plan', tool_call_id: 'call_read', tool_name: 'read_file' });
  m.addMessage(s, 'tool', 'wrote summary.md', { run_id: 'r_plan', tool_call_id: 'call_write', tool_name: 'write_file' });
  m.addMessage(s, 'assistant', 'The summary is in summary.md.', { run_id: 'r_plan' });
  const usage = { prompt_tokens: 900, prompt_cached_tokens: 850, completion_tokens: 120, load_ms: 0, prompt_eval_ms: 200, eval_ms: 4000, tokens_per_second: 30, done_reason: 'stop' };
  s.shown = [{
    run_id: 'r_plan',
    events: [
      { type: 'run_started', model: 'qwen3:8b', profile: 'Agent', context_window: 8192, protocol: 1 },
      { type: 'plan_ready', plan },
      { type: 'thinking_ended', ms: 3100 },
      { type: 'tool_event', call_id: 'call_read', name: 'read_file', outcome: 'ok', output: '', duration_ms: 120 },
      { type: 'plan_progress', done: [1] },
      { type: 'approval_requested', request_id: 'req_1', call_id: 'call_write', tool: 'write_file', arguments: null, reach: 'writes summary.md in /home/user/work', session_allowed: true, warning: null },
      { type: 'approval_resolved', request_id: 'req_1', decision: 'allow_once' },
      { type: 'tool_event', call_id: 'call_write', name: 'write_file', outcome: 'ok', output: '', duration_ms: 45 },
      { type: 'plan_progress', done: [1, 2] },
      { type: 'usage', usage },
      { type: 'stream_end', iterations: 2 },
      { type: 'memory_learned', facts: [{ id: 1, fact: 'The user prefers Rust.' }] },
    ],
  }];
}

/**
 * A stored `/plan` run as a restarted app finds it (`?workflow=1`): the
 * command, the approved (edited) plan sent to the model, one pass, and the
 * phases with their reports and the verdict, kept with the run.
 */
export function seedWorkflow(m: MockBackend): void {
  const s = m.addSession('Fixed by plan');
  const run = { run_id: 'r_wf' };
  const plan = '## Steps\n1. Make add() return a + b in src/calc.ts';
  m.addMessage(s, 'user', '/plan make add() add', run);
  const fed = m.addMessage(s, 'user', `Carry out this approved plan for the request below.\n\nRequest: make add() add\n\nPlan:\n${plan}`, run);
  m.addMessage(s, 'assistant', '', { ...run, tool_calls: [{ id: 'call_w', name: 'write_file', arguments: { path: 'src/calc.ts', content: 'a + b' } }] });
  m.addMessage(s, 'tool', 'wrote 5 bytes', { ...run, tool_call_id: 'call_w', tool_name: 'write_file' });
  m.addMessage(s, 'assistant', 'add() now returns a + b.', run);
  s.shown = [{
    run_id: 'r_wf',
    events: [
      { type: 'run_started', model: 'qwen3:8b', profile: 'Agent', context_window: 8192, protocol: 1 },
      { type: 'phase_started', phase: 'explore', cycle: 0 },
      { type: 'phase_ended', phase: 'explore', cycle: 0, outcome: 'done', report: '## Relevant files\n- src/calc.ts: add() returns a - b' },
      { type: 'phase_started', phase: 'plan', cycle: 0 },
      { type: 'phase_ended', phase: 'plan', cycle: 0, outcome: 'done', report: '## Steps\n1. Rewrite calc.ts' },
      { type: 'plan_proposed', request_id: 'plan_1', plan: '## Steps\n1. Rewrite calc.ts' },
      { type: 'plan_answered', request_id: 'plan_1', choice: 'edited' },
      { type: 'phase_started', phase: 'implement', cycle: 1, message_id: fed.id },
      { type: 'tool_event', call_id: 'call_w', name: 'write_file', outcome: 'ok', output: '', duration_ms: 7 },
      { type: 'phase_ended', phase: 'implement', cycle: 1, outcome: 'done', report: 'add() now returns a + b.' },
      { type: 'phase_started', phase: 'review', cycle: 1 },
      { type: 'phase_ended', phase: 'review', cycle: 1, outcome: 'done', report: 'npm test: 1 passed.\n{"verdict": "DONE"}' },
      { type: 'review_verdict', cycle: 1, verdict: 'done', punch_list: [], fixing: false, checks: 1 },
      { type: 'stream_end', iterations: 2 },
    ],
  }];
}

/** `?big=N`: a session of N messages (the long-session tests), opened at start. */
export function seedBig(m: MockBackend, big: number): void {
  if (big <= 0) return;
  const b = m.addSession(`Big ${big}`);
  for (let i = 0; i < big; i++) {
    const role = i % 2 === 0 ? 'user' : 'assistant';
    const lines = 1 + ((i * 7) % 5);
    const body = Array.from({ length: lines }, (_, k) => `Line ${k + 1} of message ${i}.`).join('\n\n');
    m.addMessage(b, role, `${role === 'user' ? 'Question' : 'Answer'} #${i}\n\n${body}`);
  }
  m.prefs.last_session = b.id;
}
