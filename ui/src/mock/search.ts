// The sidebar's search over every session's messages (every branch), as the store's
// full-text search answers it: each hit with a little text either side,
// at most about 50.
import type { Msg, Sess } from './records';

export function searchSessions(sessions: Iterable<Sess>, path: (s: Sess) => Msg[], q: string) {
  const out = [];
  const needle = q.toLowerCase();
  for (const s of sessions) {
    if (s.deleted) continue;
    for (const m of path(s)) {
      const at = m.content.toLowerCase().indexOf(needle);
      if (at < 0 || m.role === 'tool') continue;
      out.push({ session_id: s.id, session_title: s.title, message_id: m.id, role: m.role, parts: [
        { text: m.content.slice(Math.max(0, at - 20), at), hit: false },
        { text: m.content.slice(at, at + q.length), hit: true },
        { text: m.content.slice(at + q.length, at + q.length + 40), hit: false },
      ] });
      if (out.length > 50) return out;
    }
  }
  return out;
}
