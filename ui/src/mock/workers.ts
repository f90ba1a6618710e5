// What the core's background workers do once a run has ended, as the mock
// plays it: the memory worker keeps "my name is X" and proposes "I prefer
// X" (as a profile that asks first would); the title worker names an
// untitled session after its first words.
import type { AgentEvent } from '../bindings';
import type { MockMemories } from './memories';
import type { Run, Sess } from './records';

export function afterRun(s: Sess, run: Run, memories: MockMemories, publish: (ev: AgentEvent) => void, tickMs: number): void {
  const base = { session_id: s.id, run_id: run.id, is_subagent: false };
  const name = /my name is (\w+)/i.exec(run.prompt ?? '');
  const prefer = /i prefer ([\w ]+)/i.exec(run.prompt ?? '');
  if (name || prefer) {
    setTimeout(() => {
      if (name) {
        const fact = `The user's name is ${name[1]}`;
        const id = memories.learn(fact, s.id, run.id);
        publish({ ...base, type: 'memory_learned', facts: [{ id, fact }] } as AgentEvent);
      }
      if (prefer) publish({ ...base, type: 'memory_proposed', facts: [`The user prefers ${prefer[1]}`] } as AgentEvent);
    }, tickMs);
  }
  if (!s.title) {
    const words = (run.prompt ?? 'a chat').split(/\s+/).slice(0, 4).join(' ');
    setTimeout(() => {
      s.title = `About ${words}`;
      publish({ ...base, type: 'session_titled', title: s.title } as AgentEvent);
    }, tickMs);
  }
}
