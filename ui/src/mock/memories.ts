// The mock's memory of the person and its compaction summaries: what the
// Memory panel lists, edits (keeping each earlier version), forgets and
// declines, as the store answers it.
import type { MemoryView, SummaryView } from '../bindings';
import { memorySummary } from './memorySummary';

type Kept = MemoryView & { history: { version: number; content: string; source: string; replaced_at: number }[]; deleted?: boolean };
type Args = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const now = () => Date.now();

export class MockMemories {
  items: Kept[] = [
    { id: 1, content: 'The user prefers Rust.', source: 'memory_worker', session_id: 's1', run_id: 'r0', created_at: now() - 86400000, updated_at: now() - 3600000, version: 2, category: 'preference', quote: 'I mostly write Rust', uses: 3, session_title: null, history: [{ version: 1, content: 'The user likes Rust.', source: 'memory_worker', replaced_at: now() - 3600000 }] },
  ];
  summaries: SummaryView[] = [
    { id: 1, session_id: 's1', session_title: 'Welcome', upto_message_id: 2, content: 'The user said hello.', model: 'qwen3:8b', source: 'compaction', created_at: now() - 7200000 },
  ];

  /** `nextId` numbers new memories; `titleOf` names a memory's session. */
  constructor(private nextId: () => number, private titleOf: (session: string) => string | null) {}

  /** A fact the memory worker learned in `session`'s run `run`; its id. */
  learn(content: string, session: string, run: string): number {
    const id = this.nextId();
    this.items.push({ id, content, source: 'worker', session_id: session, run_id: run, created_at: now(), updated_at: now(), version: 1, category: 'identity', quote: null, uses: 0, session_title: null, history: [] });
    return id;
  }

  /** Answers a memory or summary command; `undefined` for any other. */
  handle(cmd: string, a: Args): unknown {
    switch (cmd) {
      case 'list_memories': return this.items.filter((m) => !m.deleted).map(({ history: _h, deleted: _d, ...m }) => ({ ...m, session_title: m.session_id ? this.titleOf(m.session_id) : null }));
      case 'memory_history': return this.items.find((m) => m.id === a.id)?.history ?? [];
      case 'add_memory': return this.byUser(String(a.content), false);
      case 'decline_memory': this.byUser(String(a.content), true); return null;
      case 'edit_memory': { const m = this.items.find((x) => x.id === a.id); if (m) { m.history.push({ version: m.version, content: m.content, source: m.source, replaced_at: now() }); m.content = a.content; m.version++; m.source = 'user'; m.updated_at = now(); } return null; }
      case 'delete_memory': { const m = this.items.find((x) => x.id === a.id); if (m) m.deleted = true; return null; }
      case 'memory_summary': return memorySummary(this.items.filter((m) => !m.deleted));
      case 'list_summaries': return this.summaries;
      case 'edit_summary': { const x = this.summaries.find((s) => s.id === a.id); if (x) x.content = a.content; return null; }
      case 'delete_summary': this.summaries = this.summaries.filter((s) => s.id !== a.id); return null;
      default: return undefined;
    }
  }

  /** A memory the person added, or declined (kept deleted, so it is not proposed again). */
  private byUser(content: string, deleted: boolean): number {
    const id = this.nextId();
    this.items.push({ id, content, source: 'user', session_id: null, run_id: null, created_at: now(), updated_at: now(), version: 1, category: null, quote: null, uses: 0, session_title: null, history: [], deleted });
    return id;
  }
}
