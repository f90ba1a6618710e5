// Projects in the mock shell (docs/projects.md), answering as the core's
// commands do: projects kept in memory, which session is in which on the
// session (`Sess.project`); names unique whatever their case, a workspace
// a full path, instructions at most 8,000 characters, a profile that
// exists; a new chat put in a project starts on its profile; a chat with
// an answer being written is not moved; deleting moves its chats out and
// takes its knowledge folders out of the index (refused while a sync
// runs); search narrowed to a project's chats; a project's JSON export
// imported back into a project of its name ("NAME (imported)" when
// taken), a profile not here left out and said. Tests reach it as
// `window.__hearthMock.projects`.
import type { ImportView, ProjectDeletedView, ProjectDraftView, ProjectView } from '../bindings';
import type { MockBackend } from './backend';
import { err } from './pickScript';
import type { Sess } from './records';
import { searchSessions } from './search';

type Project = Omit<ProjectView, 'sessions' | 'folders'>;
/** The command's arguments, as the page sends them. */
type Args = Record<string, unknown>;

const MAX_NAME = 80;
const MAX_INSTRUCTIONS = 8000;

export class MockProjects {
  list: Project[] = [];
  #next = 1;
  readonly #b: MockBackend;

  constructor(b: MockBackend) {
    this.#b = b;
  }

  /** A project command's answer, or its part of another command (a project given); undefined: the backend answers. */
  handle(cmd: string, a: Args): unknown {
    switch (cmd) {
      case 'list_projects': return this.views();
      case 'create_project': return this.create(a.draft as ProjectDraftView);
      case 'update_project': return this.update(String(a.id), a.draft as ProjectDraftView);
      case 'delete_project': return this.remove(String(a.id));
      case 'move_session': return this.move(String(a.sessionId), (a.project as string | null) ?? null);
      case 'export_project': return this.export(String(a.id), a.format === 'json' ? 'json' : 'markdown');
      case 'search_sessions': return a.project ? this.search(String(a.query), String(a.project)) : undefined;
      case 'knowledge_add_folder': return a.project ? this.addFolder(String(a.path), String(a.project)) : undefined;
      case 'import_file': return this.importProject();
      default: return undefined;
    }
  }

  views(): ProjectView[] {
    return [...this.list]
      .sort((x, y) => x.name.toLowerCase().localeCompare(y.name.toLowerCase()))
      .map((p) => ({ ...p, sessions: this.#chats(p.id).length, folders: this.#folders(p.id).map((f) => f.path) }));
  }

  view(id: string): ProjectView {
    return this.views().find((p) => p.id === id)!;
  }

  create(draft: ProjectDraftView): ProjectView {
    const p = { id: `prj_${this.#next++}`, ...this.#cleaned(draft, null) };
    this.list.push(p);
    return this.view(p.id);
  }

  update(id: string, draft: ProjectDraftView): ProjectView {
    const p = this.#find(id);
    Object.assign(p, this.#cleaned(draft, id));
    return this.view(id);
  }

  remove(id: string): ProjectDeletedView {
    this.#find(id);
    const k = this.#b.knowledge;
    const own = this.#folders(id);
    if (own.length > 0 && k.sync.running) throw err('invalid_input', 'a knowledge sync is going on: stop it first, then delete the project', 'none');
    k.folders = k.folders.filter((f) => !own.includes(f));
    const chats = this.#chats(id);
    for (const s of this.#b.sessions.values()) if (s.project === id) s.project = null;
    this.list = this.list.filter((p) => p.id !== id);
    return { sessions: chats.length, folders: own.length };
  }

  move(sessionId: string, project: string | null): null {
    if ([...this.#b.runs.values()].some((r) => r.session === sessionId && !r.done)) {
      throw err('invalid_input', 'an answer is being written in this chat: move it when it is done', 'none');
    }
    const p = project === null ? null : this.#find(project);
    const s = this.#b.sess(sessionId);
    s.project = project;
    // A new chat starts on the project's profile (the mock does not tell a
    // profile chosen from one given, so a chat that has begun keeps its own).
    if (p?.profile && s.leaf === null && s.switches.length === 0) s.profile = p.profile;
    return null;
  }

  /** Markdown to read, or JSON (`hearth.project`) that imports back, through the Save dialog. */
  export(id: string, format: 'markdown' | 'json'): string | null {
    const p = this.#find(id);
    const chats = this.#chats(id).sort((x, y) => y.updated_at - x.updated_at);
    const messages = (s: Sess) => this.#b.path(s).map((m) => ({ id: m.id, parent_id: m.parent_id, role: m.role, content: m.content }));
    const body =
      format === 'json'
        ? JSON.stringify({
            format: 'hearth.project',
            version: 1,
            project: { name: p.name, workspace: p.workspace, profile: p.profile, model: p.model, instructions: p.instructions },
            sessions: chats.map((s) => ({ format: 'hearth.session', version: 2, session: { title: s.title }, messages: messages(s) })),
          }, null, 2)
        : [`# Project: ${p.name}`, p.instructions, ...chats.map((s) => `---\n\n# ${s.title}\n\n${messages(s).map((m) => `${m.role}: ${m.content}`).join('\n\n')}`)].join('\n\n');
    return this.#b.dialogs.save(`${p.name}.${format === 'json' ? 'json' : 'md'}`, body);
  }

  search(query: string, project: string) {
    const b = this.#b;
    return searchSessions(this.#chats(project), (s) => [...b.messages.values()].filter((m) => m.session === s.id), query);
  }

  /** A knowledge folder for the project's chats only. */
  addFolder(path: string, project: string) {
    this.#find(project);
    return this.#b.knowledge.add(path, project);
  }

  /**
   * `import_file` of a project's JSON export (the next file the Open
   * dialog answers with): its chats come in a new project of its name;
   * undefined for any other file (the backend's import reads it).
   */
  importProject(): ImportView | undefined {
    const d = this.#b.dialogs;
    const text = d.answers[0]?.text;
    let v: { format?: unknown; version?: number; project?: Partial<ProjectDraftView>; sessions?: { session?: { title?: string }; messages?: { role: string; content: string }[] }[] };
    try {
      v = JSON.parse(text ?? '');
    } catch {
      return undefined;
    }
    if (v?.format !== 'hearth.project') return undefined;
    d.open();
    if ((v.version ?? 1) > 1) throw err('invalid_input', `a Hearth project export of version ${v.version}, from a newer Hearth: this one reads up to version 1`, 'none');
    let messages = 0;
    let skipped = 0;
    const made = (v.sessions ?? []).map((x) => {
      const s = this.#b.addSession(String(x.session?.title ?? ''));
      for (const m of x.messages ?? []) {
        if (m.role === 'user' || m.role === 'assistant') {
          this.#b.addMessage(s, m.role, String(m.content));
          messages++;
        } else skipped++;
      }
      return s;
    });
    const draft: ProjectDraftView = { name: '', workspace: null, profile: null, model: null, instructions: '', ...v.project };
    const base = draft.name.trim() || 'Imported project';
    let note: string | null = null;
    if (draft.profile && !this.#b.profiles.some((p) => p.name === draft.profile)) {
      note = `the project's profile \`${draft.profile}\` is not here: its chats use the default profile`;
      draft.profile = null;
    }
    let name = base;
    for (let n = 1; this.#taken(name, null); n++) name = `${base} (imported${n > 1 ? ` ${n}` : ''})`;
    const p = this.create({ ...draft, name });
    for (const s of made) s.project = p.id;
    return { source: 'Hearth', sessions: made.map((s) => s.id), messages, skipped, project: p.name, note };
  }

  #find(id: string): Project {
    const p = this.list.find((x) => x.id === id);
    if (!p) throw err('invalid_input', `no project \`${id}\``, 'none');
    return p;
  }

  #chats(id: string): Sess[] {
    return [...this.#b.sessions.values()].filter((s) => s.project === id && !s.deleted);
  }

  #folders(id: string) {
    return this.#b.knowledge.folders.filter((f) => f.project === id);
  }

  #taken(name: string, except: string | null): boolean {
    return this.list.some((p) => p.id !== except && p.name.toLowerCase() === name.toLowerCase());
  }

  /** The draft as the core keeps it (blanks none, name and instructions trimmed), or its refusal in a person's words. */
  #cleaned(draft: ProjectDraftView, id: string | null): Omit<Project, 'id'> {
    const refuse = (why: string) => err('invalid_input', why, 'none');
    const name = draft.name.trim();
    if (!name) throw refuse('a project needs a name');
    if ([...name].length > MAX_NAME) throw refuse(`a project's name is at most ${MAX_NAME} characters`);
    const blank = (s: string | null) => (s?.trim() ? s.trim() : null);
    const workspace = blank(draft.workspace);
    if (workspace && !workspace.startsWith('/')) throw refuse(`the workspace must be a full path such as /home/you/project, not \`${workspace}\``);
    const profile = blank(draft.profile);
    if (profile && !this.#b.profiles.some((p) => p.name === profile)) throw refuse(`no profile named \`${profile}\``);
    const instructions = draft.instructions.trim();
    const n = [...instructions].length;
    if (n > MAX_INSTRUCTIONS) {
      throw refuse(`a project's instructions are at most ${MAX_INSTRUCTIONS} characters (these are ${n}): they are sent with every message; put long material in a knowledge folder instead`);
    }
    if (this.#taken(name, id)) throw refuse(`a project named \`${name}\` exists`);
    return { name, workspace, profile, model: blank(draft.model), instructions };
  }
}
