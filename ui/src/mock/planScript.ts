// "/plan …": the phased workflow as the core runs it (crates/core/src/
// workflow): explore and plan stream in their own sub-runs and report,
// the plan waits for run / edit / cancel (the gate's `plan` branch is
// made from the plan the user approved), then one implement pass and a
// review that says DONE. "/plan fix twice" gets a NEEDS_FIX first.
import type { MessageView } from '../bindings';
import type { Body, ScriptKit, Step } from './scripts';

const ev = (b: Record<string, unknown>): Body => b as unknown as Body;

export const FINDINGS = '## Relevant files\n- src/calc.ts: add() returns a - b\n## Constraints and risks\n- tests/calc.test.ts checks add(2, 2) = 4';
export const PLAN = '## Files to touch\n- src/calc.ts\n## Steps\n1. Make add() return a + b in src/calc.ts\n## Verify\n- npm test';

/** A phase's sub-run: its tool call (if any), its report streamed, then its end. */
function phase(k: ScriptKit, name: 'explore' | 'plan' | 'review', cycle: number, report: string, tool?: { name: string; args: Record<string, unknown>; output: string }): Step[] {
  const scope = { is_subagent: true, session_id: `subagent_${name}${cycle}`, run_id: `subrun_${name}${cycle}`, parent_call_id: `phase_${name}_${cycle}` };
  const call = `call_${name}${cycle}`;
  return [
    { ev: ev({ type: 'phase_started', phase: name, cycle }) },
    ...(tool
      ? [
          { ev: ev({ ...scope, type: 'tool_started', call_id: call, name: tool.name, arguments: tool.args }) },
          { ev: ev({ ...scope, type: 'tool_event', call_id: call, name: tool.name, outcome: 'ok', output: tool.output, duration_ms: 4 }) },
        ]
      : []),
    ...k.deltas(report, 4).map((s) => ({ ...s, ev: ev({ ...(s.ev as Record<string, unknown>), ...scope }) })),
    { ev: ev({ type: 'phase_ended', phase: name, cycle, outcome: 'done', report }) },
  ];
}

/** One implement pass: a write, what it says, its end. */
function pass(k: ScriptKit, cycle: number, said: string): { steps: Step[]; stored: Partial<MessageView>[] } {
  const id = `call_impl${cycle}`;
  const args = { path: 'src/calc.ts', content: 'export const add = (a: number, b: number) => a + b;\n' };
  return {
    steps: [
      { ev: ev({ type: 'tool_started', call_id: id, name: 'write_file', arguments: args }) },
      { ev: ev({ type: 'tool_event', call_id: id, name: 'write_file', outcome: 'ok', output: 'wrote 52 bytes to src/calc.ts', duration_ms: 3 }) },
      ...k.deltas(said, 3),
      { ev: k.usage },
      { ev: ev({ type: 'phase_ended', phase: 'implement', cycle, outcome: 'done', report: said }) },
    ],
    stored: [
      { role: 'assistant', content: '', tool_calls: [{ id, name: 'write_file', arguments: args }] },
      { role: 'tool', content: 'wrote 52 bytes to src/calc.ts', tool_call_id: id, tool_name: 'write_file' },
      { role: 'assistant', content: said },
    ],
  };
}

const test = { name: 'run_shell', args: { command: 'npm test' }, output: 'exit code 0\n--- stdout ---\n1 passed' };

export function planWorkflowScript(k: ScriptKit): Step[] {
  const request = k.text.replace(/^\s*\/plan\s*/, '');
  const twice = request.includes('fix twice');
  const carryOut = (edited: string | null): Step[] => {
    const plan = edited ?? PLAN;
    const first = pass(k, 1, twice ? 'add() now returns a * b.' : 'add() now returns a + b; npm test passes.');
    const steps: Step[] = [
      { ev: ev({ type: 'mock_store', message: { role: 'user', content: `Carry out this approved plan for the request below.\n\nRequest: ${request}\n\nPlan:\n${plan}` } }) },
      // message_id -1: the message just stored (the mock fills in its id).
      { ev: ev({ type: 'phase_started', phase: 'implement', cycle: 1, message_id: -1 }) },
      ...first.steps,
    ];
    let stored = first.stored;
    if (twice) {
      const punch = ['add(2, 2) gives 4 only by luck: add(2, 3) must be 5'];
      steps.push(
        ...phase(k, 'review', 1, `npm test: 1 failed.\n{"verdict": "NEEDS_FIX", "punch_list": ["${punch[0]}"]}`, test),
        { ev: ev({ type: 'review_verdict', cycle: 1, verdict: 'needs_fix', punch_list: punch, fixing: true, checks: 1 }) },
        { ev: ev({ type: 'mock_store', message: { role: 'user', content: `A reviewer checked the work and found it not done yet:\n- ${punch[0]}` } }) },
        { ev: ev({ type: 'phase_started', phase: 'implement', cycle: 2, message_id: -1 }) },
      );
      const second = pass(k, 2, 'add() now returns a + b.');
      steps.push(...second.steps);
      stored = second.stored;
      // The first pass's messages are stored before the punch list.
      steps.splice(2 + first.steps.length, 0, ...first.stored.map((m) => ({ ev: ev({ type: 'mock_store', message: m }) })));
    }
    const cycle = twice ? 2 : 1;
    steps.push(
      ...phase(k, 'review', cycle, 'npm test: 1 passed.\n{"verdict": "DONE"}', test),
      { ev: ev({ type: 'review_verdict', cycle, verdict: 'done', punch_list: [], fixing: false, checks: 1 }) },
      k.end(stored),
    );
    return steps;
  };
  if (request.includes('explore fails')) {
    // The server stops answering in the middle of the explore phase, as the
    // user pass saw it (defect 4): what the phase did stays on its card.
    const scope = { is_subagent: true, session_id: 'subagent_explore0', run_id: 'subrun_explore0', parent_call_id: 'phase_explore_0' };
    const error = { code: 'timeout', recovery: 'retry', message: 'the model server stopped answering (Ollama sent nothing for 300 s)', details: null };
    return [
      { ev: ev({ type: 'phase_started', phase: 'explore', cycle: 0 }) },
      { ev: ev({ ...scope, type: 'tool_started', call_id: 'call_x', name: 'read_file', arguments: { path: 'src/calc.ts' } }) },
      { ev: ev({ ...scope, type: 'tool_event', call_id: 'call_x', name: 'read_file', outcome: 'ok', output: 'export const add = (a, b) => a - b;', duration_ms: 4 }) },
      ...k.deltas('Looking at src/calc.ts: add() subtracts', 4).map((st) => ({ ...st, ev: ev({ ...(st.ev as Record<string, unknown>), ...scope }) })),
      { ev: ev({ type: 'phase_ended', phase: 'explore', cycle: 0, outcome: 'failed', report: `the explore phase failed: ${error.message}` }) },
      { ev: ev({ type: 'error', error, partial_text: '' }) },
    ];
  }
  return [
    ...phase(k, 'explore', 0, FINDINGS, { name: 'read_file', args: { path: 'src/calc.ts' }, output: 'export const add = (a, b) => a - b;' }),
    ...phase(k, 'plan', 0, PLAN),
    {
      ev: ev({ type: 'plan_proposed', request_id: k.requestId(), plan: PLAN }),
      gate: { allow: carryOut(null), deny: [{ ev: ev({ type: 'stream_stopped', reason: 'user', partial_text: '' }) }], plan: carryOut },
    },
  ];
}
