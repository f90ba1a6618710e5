// Every action the keyboard reaches: the shortcuts (App.svelte) and the
// command palette (CommandPalette.svelte) list the same ones, so a
// shortcut is always written next to its action in the palette. Actions
// that depend on what exists (profiles, models) are made per call.
import { hosts } from './hosts.svelte';
import { app, panelTitles, type Panel } from './app.svelte';
import { chat } from './chat.svelte';
import { menus } from './menus.svelte';
import { sessionModel } from './sessionModel';
import { sessions } from './sessions.svelte';

export interface Action {
  id: string;
  label: string;
  group: 'Chat' | 'Go to' | 'Profiles' | 'Models' | 'Session' | 'Appearance';
  /** As shown ("Ctrl+K"). */
  keys?: string;
  /** Whether a key event is this action's shortcut. */
  matches?: (e: KeyboardEvent) => boolean;
  run: () => void;
  /** Words the palette also finds it by. */
  keywords?: string[];
}

const ctrl = (key: string, shift = false) => (e: KeyboardEvent) =>
  (e.ctrlKey || e.metaKey) && !e.altKey && e.shiftKey === shift && e.key.toLowerCase() === key;

function panel(id: Exclude<Panel, null>, keys?: string, matches?: (e: KeyboardEvent) => boolean): Action {
  return { id: `panel-${id}`, label: `Open ${panelTitles[id]}`, group: 'Go to', keys, matches, run: () => (app.panel = id) };
}

/** Moves the focus to the sidebar's search box (opening the sidebar first). */
function focusSearch(): void {
  if (!app.prefs.sidebar_open) void app.savePrefs({ sidebar_open: true });
  requestAnimationFrame(() => document.querySelector<HTMLInputElement>('[data-testid="search-input"]')?.focus());
}

export function actions(): Action[] {
  const list: Action[] = [
    { id: 'palette', label: 'Command palette', group: 'Go to', keys: 'Ctrl+K', matches: ctrl('k'), run: () => menus.toggle('palette') },
    { id: 'new-chat', label: 'New chat', group: 'Chat', keys: 'Ctrl+N', matches: ctrl('n'), run: () => void chat.create(), keywords: ['clear', 'session'] },
    { id: 'search', label: 'Search sessions', group: 'Chat', keys: 'Ctrl+Shift+F', matches: ctrl('f', true), run: focusSearch, keywords: ['find'] },
    {
      id: 'sidebar', label: 'Show or hide the sidebar', group: 'Go to', keys: 'Ctrl+B', matches: ctrl('b'),
      run: () => void app.savePrefs({ sidebar_open: !app.prefs.sidebar_open }),
    },
    { id: 'model-picker', label: 'Choose the model', group: 'Models', keys: 'Ctrl+Shift+M', matches: ctrl('m', true), run: () => menus.toggle('model') },
    { id: 'profile-picker', label: 'Choose the profile', group: 'Profiles', keys: 'Ctrl+Shift+P', matches: ctrl('p', true), run: () => menus.toggle('profile') },
    panel('settings', 'Ctrl+,', ctrl(',')),
    panel('models'),
    panel('tools'),
    panel('memory'),
    panel('profiles'),
  ];
  list.push({
    id: 'import', label: 'Import conversations (ChatGPT, Open WebUI, Hearth)…', group: 'Session',
    run: () => void sessions.importPicked((id) => chat.open(id)), keywords: ['chatgpt', 'webui', 'open'],
  });
  if (chat.run.busy) list.push({ id: 'stop', label: 'Stop the answer', group: 'Chat', keys: 'Esc', run: () => void chat.run.stop() });
  const id = chat.sessionId;
  if (id) {
    list.push(
      { id: 'export-md', label: 'Export this session as Markdown', group: 'Session', run: () => void sessions.export(id, 'markdown') },
      { id: 'export-json', label: 'Export this session as JSON', group: 'Session', run: () => void sessions.export(id, 'json') },
    );
  }
  const placed = sessionModel();
  for (const m of app.backend?.models ?? []) {
    if (m.name === placed.model || (m.capabilities.length > 0 && !m.capabilities.includes('completion'))) continue;
    // A chat on another host comes home to the default server with it.
    const run = placed.host !== 'ollama' ? () => void chat.setHost('ollama', m.name) : () => void chat.setModel(m.name === placed.profile?.model ? null : m.name);
    list.push({ id: `model-${m.name}`, label: `Use ${m.name} in this chat`, group: 'Models', run });
  }
  // Other hosts' models (read when the palette opens): the session moves there.
  for (const [host, model] of hosts.others) {
    if (host === placed.host && model === placed.model) continue;
    list.push({ id: `model-${model}@${host}`, label: `Use ${model} on ${host} in this chat`, group: 'Models', run: () => void chat.setHost(host, model), keywords: [host] });
  }
  const themes = [
    ['light', 'Light theme'],
    ['dark', 'Dark theme'],
    ['system', 'Theme as the system has it'],
  ] as const;
  for (const [theme, label] of themes) {
    if (app.prefs.theme === theme) continue;
    list.push({ id: `theme-${theme}`, label, group: 'Appearance', run: () => void app.savePrefs({ theme }), keywords: ['theme', 'colours', 'colors', 'mode', 'appearance'] });
  }
  for (const p of app.profiles?.profiles ?? []) {
    if (p.name === chat.profile) continue;
    list.push({ id: `profile-${p.name}`, label: `Switch to profile ${p.name}`, group: 'Profiles', run: () => void chat.switchProfile(p.name) });
  }
  return list;
}

/** Runs the action whose shortcut `e` is; true when one did. */
export function runShortcut(e: KeyboardEvent): boolean {
  // A key held down is one press; an edit or a rename in progress keeps
  // the keyboard (its own Enter and Esc decide).
  if (e.repeat) return false;
  const field = e.target instanceof HTMLElement ? e.target.closest('[data-testid="edit-input"], [data-testid="rename-input"]') : null;
  if (field) return false;
  const a = actions().find((x) => x.matches?.(e));
  if (!a) return false;
  e.preventDefault();
  a.run();
  return true;
}
