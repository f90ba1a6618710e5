// `import_file` in the mock: Open WebUI's flat export and ChatGPT's
// conversations.json (the branch `current_node` ends), enough for the
// page's flow; the shell's own parser (crates/store/src/import.rs) is
// tested on its own.
import { err } from './pickScript';

export interface Imported {
  title: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
  skipped: number;
}

type Json = Record<string, unknown>;

export function parseImport(text: string): { source: string; conversations: Imported[] } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw err('invalid_input', 'the file is not JSON, so it is not an export Hearth reads', 'none');
  }
  const list = (Array.isArray(v) ? v : [v]) as Json[];
  const keep = (role: unknown, content: unknown, out: Imported) => {
    if ((role === 'user' || role === 'assistant') && typeof content === 'string' && content.trim()) out.messages.push({ role, content: content.trim() });
    else out.skipped++;
  };
  if (list.some((c) => c.mapping)) {
    return {
      source: 'ChatGPT',
      conversations: list.map((c) => {
        const out: Imported = { title: String(c.title ?? ''), messages: [], skipped: 0 };
        const mapping = c.mapping as Record<string, Json>;
        const ids: string[] = [];
        for (let at = c.current_node as string | null; at && mapping[at] && !ids.includes(at); at = mapping[at]!.parent as string | null) ids.unshift(at);
        for (const id of ids) {
          const m = mapping[id]!.message as Json | null;
          if (!m) continue;
          const parts = ((m.content as Json)?.parts as unknown[] | undefined)?.filter((p) => typeof p === 'string').join('\n');
          keep((m.author as Json)?.role, parts, out);
        }
        return out;
      }),
    };
  }
  if (list.some((c) => c.chat)) {
    return {
      source: 'Open WebUI',
      conversations: list.map((c) => {
        const chat = c.chat as Json;
        const out: Imported = { title: String(c.title ?? chat.title ?? ''), messages: [], skipped: 0 };
        for (const m of (chat.messages as Json[]) ?? []) keep(m.role, m.content, out);
        return out;
      }),
    };
  }
  throw err('invalid_input', "this is not an export Hearth reads: expected ChatGPT's conversations.json, an Open WebUI chat export, or a Hearth session export (JSON)", 'none');
}
