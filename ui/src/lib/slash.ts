// `/` commands typed in the composer: `/model NAME`, `/profile NAME`,
// `/new` (or `/clear`), `/settings`, `/help`, and `/plan REQUEST` (sent as
// the message it is: the core runs the workflow). A line that starts with `/`
// but names no command is an ordinary message ("/etc/hosts is empty").
// Pure: the composer shows the suggestions and runs what `parse` returns.

export interface SlashContext {
  models: string[];
  profiles: string[];
}

export interface Suggestion {
  /** What the composer holds once this one is taken. */
  insert: string;
  label: string;
  hint: string;
}

const COMMANDS = [
  { name: 'model', args: 'NAME', hint: 'use this model in this chat' },
  { name: 'profile', args: 'NAME', hint: 'switch this chat to a profile' },
  { name: 'plan', args: 'REQUEST', hint: 'a big task in phases: explore, plan (you approve it), implement, review' },
  { name: 'new', args: '', hint: 'start a new chat' },
  { name: 'clear', args: '', hint: 'start a new chat (this one stays in the sidebar)' },
  { name: 'settings', args: '', hint: 'open Settings' },
  { name: 'help', args: '', hint: 'every action and its shortcut (Ctrl+K)' },
] as const;

export type Slash =
  | { kind: 'model' | 'profile'; arg: string }
  | { kind: 'new' | 'settings' | 'help' }
  | { kind: 'error'; message: string };

/** The command a draft is, or null when it is a message. */
export function parse(draft: string, ctx: SlashContext): Slash | null {
  const m = /^\/([a-z]+)(?:\s+(.*))?$/s.exec(draft.trim());
  if (!m) return null;
  const [, name, rest = ''] = m;
  const arg = rest.trim();
  switch (name) {
    case 'model':
    case 'profile': {
      const names = name === 'model' ? ctx.models : ctx.profiles;
      if (!arg) return { kind: 'error', message: `/${name} needs a name: ${names.join(', ') || 'none yet'}` };
      const found = names.find((n) => n === arg) ?? names.find((n) => n.toLowerCase() === arg.toLowerCase());
      if (!found) return { kind: 'error', message: `there is no ${name} “${arg}”; ${names.length ? `choose one of ${names.join(', ')}` : 'none yet'}` };
      return { kind: name, arg: found };
    }
    // Sent as a message: the core runs the workflow (docs/plan.md).
    case 'plan':
      return arg ? null : { kind: 'error', message: '/plan needs what to do, e.g. “/plan make the failing test in tests/ pass”' };
    // These take nothing: "/help me write a letter" is a message.
    case 'new':
    case 'clear':
      return arg ? null : { kind: 'new' };
    case 'settings':
      return arg ? null : { kind: 'settings' };
    case 'help':
      return arg ? null : { kind: 'help' };
    default:
      return null;
  }
}

/** What to offer while `draft` is being typed (nothing once it is a message). */
export function suggest(draft: string, ctx: SlashContext): Suggestion[] {
  if (!draft.startsWith('/') || draft.includes('\n')) return [];
  const m = /^\/([a-z]*)(\s+(.*))?$/.exec(draft);
  if (!m) return [];
  const [, word = '', spaced, rest = ''] = m;
  if (!spaced) {
    return COMMANDS.filter((c) => c.name.startsWith(word)).map((c) => ({
      insert: `/${c.name}${c.args ? ' ' : ''}`,
      label: `/${c.name}${c.args ? ` ${c.args}` : ''}`,
      hint: c.hint,
    }));
  }
  if (word !== 'model' && word !== 'profile') return [];
  const names = word === 'model' ? ctx.models : ctx.profiles;
  const typed = rest.trim().toLowerCase();
  return names
    .filter((n) => n.toLowerCase().includes(typed) && n !== rest.trim())
    .map((n) => ({ insert: `/${word} ${n}`, label: n, hint: word === 'model' ? 'model' : 'profile' }));
}
