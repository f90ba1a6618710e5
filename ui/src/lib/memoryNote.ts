// The "Remembered" line under a session's last answer, as the core kept it
// with its run (so it comes back when the session is opened again).
import type { LearnedFact, SessionView } from '../ipc';

/** What memory did with a session's last turn: kept facts (Undo) or proposed ones (the profile asks first). */
export type MemoryNote = { sessionId: string; learned: LearnedFact[]; proposed: string[] };

/**
 * What memory learned from the branch's last answer, as the core kept it
 * with that run: the "Remembered" line is there again when the session is
 * opened, after a restart too, until its next turn. (Proposals are not:
 * one declined since would come back.)
 */
export function storedMemoryNote(view: SessionView): MemoryNote | null {
  const last = [...view.messages].reverse().find((m) => m.role === 'assistant' && m.run_id);
  const shown = last ? view.answers_shown.find((a) => a.run_id === last.run_id) : undefined;
  const learned = (shown?.events ?? []).flatMap((e) => (e.type === 'memory_learned' ? e.facts : []));
  return learned.length > 0 ? { sessionId: view.id, learned, proposed: [] } : null;
}

/**
 * `note` with only the facts memory still holds (`kept`: the ids it
 * holds): one undone or deleted since is left out, never offered an Undo
 * that would fail. Null when none is left.
 */
export function stillKept(note: MemoryNote, kept: Set<number>): MemoryNote | null {
  const learned = note.learned.filter((f) => kept.has(f.id));
  return learned.length > 0 ? { ...note, learned } : null;
}
