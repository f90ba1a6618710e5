// The words of the Knowledge section (Settings): a folder's counts and
// state, a sync's progress, and how a passage was found.
import type { KnowledgeFolderView, KnowledgeHitView, KnowledgeSyncView } from '../ipc';

/** `1,234`, whatever the system's locale (the app's words are English). */
export const count = (n: number): string => n.toLocaleString('en-US');

const plural = (n: number, one: string, many: string): string => `${count(n)} ${n === 1 ? one : many}`;

/** "12 files · 340 passages · 300 embedded" (the left-out count is said apart: it opens the list). */
export function folderCounts(f: KnowledgeFolderView): string {
  return `${plural(f.files, 'file', 'files')} · ${plural(f.chunks, 'passage', 'passages')} · ${count(f.embedded)} embedded`;
}

/** A folder's state when it is not simply ready, or null. */
export function folderState(f: KnowledgeFolderView): { text: string; bad: boolean } | null {
  switch (f.status) {
    case 'ready':
      return null;
    case 'new':
      return { text: 'Not read yet: the next sync reads it.', bad: false };
    case 'syncing':
      return { text: 'Being read…', bad: false };
    case 'missing':
      return { text: `Missing: ${f.detail ?? 'the folder is not there; its passages are kept until it is removed'}`, bad: true };
    case 'failed':
      return { text: `Failed${f.detail ? `: ${f.detail}` : ''}`, bad: true };
    default:
      return { text: f.status + (f.detail ? `: ${f.detail}` : ''), bad: Boolean(f.detail) };
  }
}

/** What a running sync is doing: "Reading… 1,234 files, 56 changed", "Embedding… 300 of 1,200 passages". */
export function syncProgress(s: KnowledgeSyncView): string {
  if (s.phase === 'embedding') return `Embedding… ${count(s.embedded)} of ${count(s.to_embed)} passages`;
  if (s.phase === 'reading') return `Reading… ${plural(s.seen, 'file', 'files')}, ${count(s.read)} changed`;
  return 'Syncing…';
}

/** "12–30", or "12" for one line. */
export function lineSpan(h: KnowledgeHitView): string {
  return h.end_line > h.start_line ? `${h.start_line}–${h.end_line}` : `${h.start_line}`;
}

/** Which search found a passage: "words", "meaning" or "words and meaning". */
export function foundBy(h: KnowledgeHitView): string {
  if (h.word_rank !== null && h.meaning_rank !== null) return 'words and meaning';
  if (h.meaning_rank !== null) return 'meaning';
  return 'words';
}
