// A fake Hearth backend for UI tests: in-memory sessions (with branches),
// profiles, memories, models, and scripted runs that stream AgentEvents
// through the turn's Channel on timers. The message text picks the script:
// "think", "plan", "tools", "write", "shell", "nested", "deep", "twin", "switch to <profile>",
// "slow", "fail", "limit", "repeat", "notfound", "xss", "links", "fetch" (an injection in a
// tool result), "context <pct>", "compact", "mcp app counter" / "mcp app hostile" (an MCP
// tool with an app, mock/mcpApps.ts); anything else gets a short
// Markdown answer. A message that looks like a prompt injection is
// screened first, by the profile's input guard. `run_trace` reads a run's
// spans back from its events (`config.traceError` makes it fail). Scripts that ask for approval pause until the `approve`
// command answers. `?vision=1` adds a model that can see (gemma3:4b). `?holdopen=1` holds every `open_session` reply until `releaseOpen()`. `?subagents=1` adds a stored session with sub-agent
// transcripts. Tests drive and inspect it through `window.__hearthMock`
// (calls, config, `dialogs`: what the Save and Open dialogs answer, `knowledge`: the knowledge folders, mock/knowledge.ts, and `updates`: the updater, mock/updates.ts). `holdSend()` holds every `send_message` until `releaseSend()` (a core slow to start the run).
import { Dialogs } from './dialogs';
import { flushThink, initialSplit, splitThink } from './thinkTags';
import { ShownText } from './liveSanitize';
import { PROTOCOL_VERSION } from '../bindings';
import type { ChannelLike, Msg, Run, Sess } from './records';
import type {
  AgentEvent,
  PageEvent,
  PlanAnswer,
  MessageView,
  ModelView,
  ProfileView,
  RunningView,
  SessionView,
  SkillsView,
  HooksView,
} from '../bindings';
import { screenMessage } from './guardScripts';
import { MockFiles } from './attachments';
import { parseImport } from './imports';
import { MockMcp } from './mcp';
import { MockMcpApps } from './mcpApps';
import { MockPulls } from './pulls';
import { MockHosts } from './hosts';
import { MockKnowledge } from './knowledge';
import { MockSources } from './sources';
import { MockProjects } from './projects';
import { MockMemories } from './memories';
import { firstRun, settleSeeds } from './firstRun';
import { err, pickScript } from './pickScript';
import { seedBig, seedPlanned, seedSubagents, seedWorkflow, storeSubagents } from './seed';
import { sessionView } from './view';
import type { Body, Step, StoredSub } from './scripts';
import { traceOf } from './trace';
import { MockVoice } from './voice';
import { MockUpdates } from './updates';
import { searchSessions } from './search';
import { afterRun } from './workers';
const now = () => Date.now();
/** The start of a branch's first question, as the store's session list gives it. */
function opening(path: Msg[]): string {
  const words = (path.find((m) => m.role === 'user')?.content ?? '').split(/\s+/).filter(Boolean).join(' ');
  if ([...words].length <= 60) return words;
  const cut = [...words].slice(0, 60).join('');
  const space = cut.lastIndexOf(' ');
  return `${(space > 30 ? cut.slice(0, space) : [...cut].slice(0, 59).join('')).trimEnd()}…`;
}

export class MockBackend {
  calls: { cmd: string; args: Record<string, unknown> }[] = [];
  /** Read aloud: whether the mock speaker speaks (a test ends it with `speaking = false`). */
  speaking = false;
  /**
   * `stepped`: a run's events wait until `step()` sends the next one (a test
   * looks at the page after every delta). `streamText`: what "stream text"
   * answers, one character per delta (`streamChunk` characters, for a long
   * one); `streamStored`: the message the core
   * would store for it (its view sanitized), when not the text itself.
   */
  config = { refuseSendMs: 0, queueDelayMs: 1500, queueRunEnded: false, tickMs: 40, slowDelayMs: 60, reachable: true, approveHeld: false, traceError: false, stepped: false, protocol: PROTOCOL_VERSION as number, streamText: '', streamChunk: 1, streamStored: null as Partial<MessageView> | null, noSpeaker: false };
  /** Set by a test: `preload_model` waits until the test calls it (a load that takes a while). */
  preloadGate: Promise<void> | null = null;
  sessions = new Map<string, Sess>();
  dialogs = new Dialogs();
  /** `?holdopen=1` or `holdOpen()`: sessions open only once `releaseOpen()` is called (a slow server). */
  private held: Promise<void> | null = null;
  private releaseHeld: (() => void) | null = null;
  holdOpen(): void {
    this.held = new Promise((r) => (this.releaseHeld = r));
  }
  releaseOpen(): void {
    this.releaseHeld?.();
    this.held = null;
  }
  /** `holdSend()`: `send_message` takes the message (and answers with the run) only once `releaseSend()` is called (a core slow to start). */
  private sendHeld: Promise<void> | null = null;
  private releaseSendHeld: (() => void) | null = null;
  holdSend(): void {
    this.sendHeld = new Promise((r) => (this.releaseSendHeld = r));
  }
  releaseSend(): void {
    this.releaseSendHeld?.();
    this.sendHeld = null;
  }
  /** The page's channel for the shell's own events (`page_events`); `pageEvent()` sends on it, as a clicked notice does. */
  private pageChannel: ChannelLike | null = null;
  private pageSent = 0;
  pageEvent(e: PageEvent): boolean {
    if (!this.pageChannel) return false;
    this.deliver(this.pageChannel, this.pageSent++, e);
    return true;
  }
  messages = new Map<number, Msg>();
  runs = new Map<string, Run>();
  prefs = { theme: 'system' as 'system' | 'light' | 'dark', last_session: null as string | null, sidebar_open: true, voice_send: true, notify: true, html_preview: false };
  url = 'http://127.0.0.1:11434';
  openaiUrl = 'http://127.0.0.1:8080/v1';
  nextId = 1;
  nextSession = 1;
  profiles: ProfileView[] = [
    { name: 'Chat', model: 'qwen3:8b', system_prompt: 'You are helpful.', tools: [], planning_enabled: false, max_iterations: 10, temperature: null, think: null, workspace: null, backend: null, auto_approve: [], history_turns: null, input_guard: 'warn', sandbox_off: false, max_output_tokens: 16384 },
    { name: 'Agent', model: 'qwen3:8b', system_prompt: 'You use tools.', tools: null, planning_enabled: true, max_iterations: 20, temperature: 0.2, think: 'on', workspace: '/home/user/work', backend: null, auto_approve: ['read_file'], history_turns: 20, input_guard: 'block', sandbox_off: false, max_output_tokens: 16384 },
  ];
  defaultProfile = 'Chat';
  mcp = new MockMcp();
  /** MCP apps (`mcp_app_*`): the fixture apps, a refusal, a failing view (mock/mcpApps.ts). */
  mcpApps = new MockMcpApps((id) => this.runs.has(id));
  voice = new MockVoice();
  files = new MockFiles();
  /** The OpenAI-compatible server's URL was chosen (the shell lists that host only then, or when a profile names it). */
  openaiChosen = false;
  hosts = new MockHosts(() => ({ url: this.url, openaiUrl: this.openaiUrl, openaiInUse: this.openaiChosen || this.profiles.some((p) => p.backend === 'openai'), models: this.models.map((m) => m.name), reachable: this.config.reachable }));
  /** Knowledge folders (`knowledge_*`): a sync goes a step further at each `knowledge_status`; `knowledge.hold` keeps it where it is. */
  knowledge = new MockKnowledge();
  /** Knowledge in the conversation (`answer_sources`, `knowledge_passage`, the Knowledge switch): mock/sources.ts. */
  sources = new MockSources(this);
  /** Projects (`list_projects` … `export_project`, and a project's part of search, knowledge folders and import): mock/projects.ts. */
  projects = new MockProjects(this);
  /** Settings › About's updater (`check_update`, `install_update`; `?update=available|unavailable`): mock/updates.ts. */
  updates: MockUpdates;
  pulls = new MockPulls((m) => { if (!this.models.some((x) => x.name === m.name)) this.models = [...this.models, m]; });
  /** The skills folder as the shell reads it: two skills and a folder that is not one. */
  skills: SkillsView = {
    folder: '/home/user/.local/share/hearth/skills',
    skills: [
      { name: 'commit-messages', description: 'Writes commit messages in the team style. Use when committing.', folder: '/home/user/.local/share/hearth/skills/commit-messages', license: 'MIT', compatibility: null },
      { name: 'pdf-forms', description: 'Fills PDF forms.', folder: '/home/user/.local/share/hearth/skills/pdf-forms', license: null, compatibility: 'python3 and pdftk' },
    ],
    problems: [{ path: '/home/user/.local/share/hearth/skills/Drafts', reason: 'the name "Drafts" does not fit the format: a name has only lowercase letters, digits and hyphens' }],
  };
  hooks: HooksView = {
    config: '{\n  "before_tool_call": [{"command": "python3 /home/user/hooks/no_rm.py", "tools": ["run_shell"]}, {"command": "python3 check.py"}]\n}',
    before_tool_call: 2,
    after_tool_call: 0,
    before_model_call: 0,
    problem: null,
    warnings: ["the hook `python3 check.py` runs `check.py` from the run's workspace, where the model can rewrite it: give its full path, outside every workspace"],
  };
  persona = 'Be concise.';
  toolNames = ['read_file', 'write_file', 'edit_file', 'list_dir', 'search_files', 'run_shell', 'web_fetch', 'spawn_agent', 'switch_profile', 'update_plan', 'load_skill'];
  memories = new MockMemories(() => this.nextId++, (id) => this.sessions.get(id)?.title ?? null);
  models: ModelView[] = [
    { name: 'qwen3:8b', size: 5_200_000_000, family: 'qwen3', parameter_size: '8.2B', quantization: 'Q4_K_M', capabilities: ['completion', 'tools', 'thinking'], context_length: 40960, settings: { num_ctx: 8192, keep_alive_secs: 1800 } },
    { name: 'llama3.2:3b', size: 2_000_000_000, family: 'llama', parameter_size: '3.2B', quantization: 'Q4_K_M', capabilities: ['completion', 'tools'], context_length: 131072, settings: { num_ctx: 4096, keep_alive_secs: -1 } },
  ];
  running: RunningView[] = [
    { name: 'qwen3:8b', size: 6_000_000_000, size_vram: 4_500_000_000, context_length: 8192, expires_at: new Date(now() + 1800_000).toISOString() },
  ];

  constructor(params: URLSearchParams) {
    if (params.get('unreachable')) this.config.reachable = false;
    // A session left listening by the page before a reload.
    if (params.get('voice') === 'listening') this.voice.pretendListening();
    // A message the core refuses before keeping it, the refusal coming this many ms after Send.
    this.config.refuseSendMs = Number(params.get('refusesend') ?? 0);
    if (params.get('holdopen')) this.holdOpen();
    this.updates = new MockUpdates(params.get('update'), () => [...this.runs.values()].some((r) => !r.done));
    firstRun(this, params.get('firstrun'));
    const s = this.addSession('Welcome');
    const u = this.addMessage(s, 'user', 'Hello there');
    this.addMessage(s, 'assistant', 'Hi! How can I help?', { parent: u.id });
    this.prefs.last_session = s.id;
    if (params.get('subagents')) seedSubagents(this);
    if (params.get('planned')) seedPlanned(this);
    if (params.get('workflow')) seedWorkflow(this);
    // A restarted app whose Welcome session was left with text typed and not sent.
    const unsent = params.get('unsent');
    if (unsent) for (const s of this.sessions.values()) if (s.title === 'Welcome') s.unsent = unsent;
    // A model that can see, for the attachment tests.
    if (params.get('vision')) this.models = [...this.models, { name: 'gemma3:4b', size: 3_300_000_000, family: 'gemma3', parameter_size: '4.3B', quantization: 'Q4_K_M', capabilities: ['completion', 'vision'], context_length: 131072, settings: { num_ctx: 4096, keep_alive_secs: 1800 } }];
    seedBig(this, Number(params.get('big') ?? 0));
    // A chat whose answers drew on a knowledge folder (mock/sources.ts).
    if (params.get('sources')) this.sources.seed();
  }

  // ---- storage helpers
  addSession(title: string): Sess {
    const s: Sess = { id: `s${this.nextSession++}`, title, profile: this.defaultProfile, leaf: null, switches: [], subagents: [], deleted: false, created_at: now(), updated_at: now() };
    this.sessions.set(s.id, s);
    return s;
  }
  addMessage(s: Sess, role: MessageView['role'], content: string, extra: Partial<MessageView> & { parent?: number | null } = {}): Msg {
    const parent = extra.parent !== undefined ? extra.parent : s.leaf;
    const m: Msg = {
      id: this.nextId++, parent_id: parent, run_id: extra.run_id ?? null, role, content, thinking: extra.thinking ?? null,
      tool_calls: extra.tool_calls ?? [], tool_call_id: extra.tool_call_id ?? null, tool_name: extra.tool_name ?? null,
      status: extra.status ?? 'complete', created_at: now(), session: s.id, attachments: extra.attachments ?? [],
    };
    this.messages.set(m.id, m);
    s.leaf = m.id;
    s.updated_at = now();
    return m;
  }
  path(s: Sess): Msg[] {
    const out: Msg[] = [];
    let id = s.leaf;
    while (id !== null) {
      const m = this.messages.get(id);
      if (!m) break;
      out.push(m);
      id = m.parent_id;
    }
    return out.reverse();
  }
  children(session: string, parent: number | null): Msg[] {
    return [...this.messages.values()].filter((m) => m.session === session && m.parent_id === parent);
  }
  view(s: Sess): SessionView {
    return sessionView(this, s);
  }
  sess(id: unknown): Sess {
    const s = this.sessions.get(String(id));
    if (!s || s.deleted) throw err('invalid_input', `no session ${String(id)}`, 'none');
    return s;
  }

  // ---- IPC entry point
  /** Like the real IPC, results are copies (serialized), never shared objects. */
  async handle(cmd: string, args: Record<string, unknown>): Promise<unknown> {
    const r = await this.dispatch(cmd, args);
    return r === undefined ? null : structuredClone(r);
  }

  async dispatch(cmd: string, args: Record<string, unknown>): Promise<unknown> {
    const logged: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) logged[k] = v && typeof v === 'object' && 'id' in (v as object) && k.startsWith('on') ? '<channel>' : v;
    this.calls.push({ cmd, args: logged });
    // The mock trusts the argument shapes the app sends.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const a = args as any;
    // ---- projects (mock/projects.ts): their commands, and search, a
    // knowledge folder or an import that concerns a project.
    const forProject = this.projects.handle(cmd, a);
    if (forProject !== undefined) return forProject;
    // ---- knowledge in the conversation (mock/sources.ts): an answer's
    // sources, a passage, the Knowledge switch; a message sent with it on
    // gets its passages attached here, then goes on below.
    const forSources = this.sources.handle(cmd, a);
    if (forSources !== undefined) return forSources;
    // ---- MCP apps (mock/mcpApps.ts): a call's app, and what the app asks for.
    const forApps = this.mcpApps.handle(cmd, a);
    if (forApps !== undefined) return forApps;
    // ---- every other command
    switch (cmd) {
      case 'page_events': this.pageChannel = a.onEvent as ChannelLike; this.pageSent = 0; return null;
      case 'app_info': return { version: '0.1.0', demo: true, db_path: '/tmp/hearth-mock.db', ollama_url: this.url, openai_url: this.openaiUrl };
      case 'check_update': return this.updates.checkNow();
      case 'install_update': { const ch = a.onProgress as ChannelLike; let i = 0; return this.updates.install(String(a.version), (p) => this.deliver(ch, i++, p)); }
      case 'set_openai_url': { const u = String(a.url).trim().replace(/\/+$/, ''); this.openaiUrl = /:\/\/[^/]+\//.test(u) ? u : `${u}/v1`; this.openaiChosen = true; return this.openaiUrl; }
      case 'get_prefs': return { ...this.prefs };
      case 'set_prefs': this.prefs = { ...(a.prefs as typeof this.prefs) }; return null;
      case 'open_link': {
        // As links.rs: a mail link sets nothing but addresses, subject and body.
        const field = /^mailto:/i.test(String(a.url)) ? [...new URL(String(a.url)).searchParams.keys()].find((k) => !['to', 'subject', 'body'].includes(k.toLowerCase())) : undefined;
        if (field) throw err('invalid_input', `this mail link would also set \`${field}\`: a link in an answer may only give the address, subject and body (it could attach a file or copy someone in), so it is not opened`, 'none');
        return null;
      }
      case 'backend_status': return this.status();
      case 'set_ollama_url': this.url = a.url; this.config.reachable = true; return this.status();
      case 'list_sessions': return [...this.sessions.values()].filter((s) => !s.deleted).sort((x, y) => y.updated_at - x.updated_at)
        .map((s) => ({ id: s.id, title: s.title, opening: s.title ? '' : opening(this.path(s)), messages: this.path(s).length, created_at: s.created_at, updated_at: s.updated_at, live: [...this.runs.values()].some((r) => r.session === s.id && !r.done), project: s.project ?? null }));
      case 'search_sessions': return searchSessions(this.sessions.values(), (x) => [...this.messages.values()].filter((m) => m.session === x.id), String(a.query)); // every branch, as the store's index
      // Untitled until the title worker names it, as in the store.
      case 'new_session': return this.addSession('').id;
      case 'open_session': {
        // The snapshot is taken now; the reply may come later (events go on meanwhile).
        const v = this.view(this.sess(a.sessionId));
        if (this.held) await this.held;
        return v;
      }
      case 'rename_session': this.sess(a.sessionId).title = a.title; return null;
      case 'delete_session': this.sess(a.sessionId).deleted = true; return null;
      case 'restore_session': { const s = this.sessions.get(a.sessionId); if (s) s.deleted = false; return null; }
      case 'export_session': {
        const s = this.sess(a.sessionId);
        const name = `${s.title}.${a.format === 'json' ? 'json' : 'md'}`;
        return this.dialogs.save(name, this.path(s).map((m) => `${m.role}: ${m.content}`).join('\n\n'));
      }
      case 'save_artifact': {
        const ext = a.format === 'png' ? 'png' : a.format === 'html' ? 'html' : 'svg';
        return this.dialogs.save(`${String(a.name) || 'hearth-artifact'}.${ext}`, String(a.data));
      }
      case 'run_trace': {
        if (this.config.traceError) throw err('storage', 'database is locked');
        const run = this.runs.get(String(a.runId));
        return run ? traceOf(run) : null;
      }
      case 'switch_branch': { const s = this.sess(a.sessionId); let id: number = a.messageId; for (;;) { const kids = this.children(s.id, id); const last = kids[kids.length - 1]; if (!last) break; id = last.id; } s.leaf = id; return this.view(s); }
      case 'send_message': {
        if (this.sendHeld) await this.sendHeld;
        if (this.config.refuseSendMs > 0) {
          await new Promise((r) => setTimeout(r, this.config.refuseSendMs));
          throw err('invalid_input', 'the model server refused this message', 'none');
        }
        const s = this.sess(a.sessionId);
        const model = s.model ?? (this.profiles.find((p) => p.name === s.profile) ?? this.profiles[0]!).model;
        const attachments = this.files.give(a.attachments ?? [], a.text, model, this.models.find((m) => m.name === model)?.capabilities ?? null);
        const u = this.addMessage(s, 'user', a.text, { attachments });
        return this.startRun(s, a.text, a.text, u.id, a.onEvent);
      }
      case 'save_unsent': { const s = this.sess(a.sessionId); const t = String(a.text); s.unsent = t.trim() ? t : null; return true; }
      case 'choose_workspace': return this.dialogs.folder((a.start as string | null) ?? null);
      case 'import_file': {
        const picked = this.dialogs.open();
        if (!picked) return null;
        const { source, conversations } = parseImport(picked.text ?? '');
        const made = conversations.filter((c) => c.messages.length > 0).map((c) => {
          // Beside its original, a copy says it is one, as the store names it.
          const taken = (t: string) => [...this.sessions.values()].some((x) => !x.deleted && x.title === t);
          let title = c.title;
          for (let n = 1; title && taken(title); n++) title = `${c.title} (imported${n > 1 ? ` ${n}` : ''})`;
          const s = this.addSession(title);
          for (const m of c.messages) this.addMessage(s, m.role, m.content);
          return s.id;
        });
        return { source, sessions: made, messages: conversations.reduce((n, c) => n + c.messages.length, 0), skipped: conversations.reduce((n, c) => n + c.skipped, 0), project: null, note: null };
      }
      case 'attach_file': return this.files.add(String(a.name), String(a.data));
      case 'attachment_data': return this.files.dataUrl(String(a.sha256));
      case 'regenerate': {
        const s = this.sess(a.sessionId);
        let parent: number | null;
        if (a.messageId === null) {
          const path = this.path(s);
          const lastUser = [...path].reverse().find((m) => m.role === 'user');
          if (!lastUser) throw err('invalid_input', 'nothing to retry', 'none');
          parent = lastUser.id;
        } else parent = this.messages.get(a.messageId)?.parent_id ?? null;
        s.leaf = parent;
        const prompt = parent !== null ? (this.messages.get(parent)?.content ?? '') : '';
        return this.startRun(s, null, prompt, parent, a.onEvent);
      }
      case 'edit_and_resend': { const s = this.sess(a.sessionId); const old = this.messages.get(a.messageId); s.leaf = old?.parent_id ?? null; const u = this.addMessage(s, 'user', a.text); return this.startRun(s, a.text, a.text, u.id, a.onEvent); }
      case 'stop_run': return this.stop(String(a.runId));
      case 'follow_run': return this.follow(String(a.sessionId), Number(a.afterSeq), a.onEvent as ChannelLike);
      case 'queue_message': {
        const run = [...this.runs.values()].find((r) => r.session === a.sessionId && !r.done);
        if (!run || this.config.queueRunEnded) return { kind: 'run_ended' };
        const q = { queue_id: `q${this.nextId++}`, text: String(a.text), at: now() };
        run.queue.push(q);
        return { kind: 'queued', queue_id: q.queue_id };
      }
      case 'approve': {
        // `approveHeld`: the answer waits until the test clears it, so the
        // page's state while it waits (buttons locked) is read with nothing
        // to race.
        while (this.config.approveHeld) await new Promise((r) => setTimeout(r, 20));
        return this.approve(String(a.requestId), a.decision);
      }
      case 'answer_plan': return this.answerPlan(String(a.requestId), a.answer as PlanAnswer);
      case 'voice_start': { const ch = a.onEvent as ChannelLike; let i = 0; this.voice.start(a.source, (e) => this.deliver(ch, i++, e)); return null; }
      case 'voice_stop': return this.voice.stop();
      case 'voice_status': return this.voice.status();
      case 'speak_text': if (this.config.noSpeaker) throw err('invalid_input', 'No text-to-speech server is set up. Run `voice/setup.sh` from Hearth\'s source.', 'none'); this.speaking = true; return null;
      case 'stop_speaking': { const was = this.speaking; this.speaking = false; return was; }
      case 'speaking_status': return { configured: !this.config.noSpeaker, speaking: this.speaking, failure: null, setup: 'Run `voice/setup.sh` from Hearth\'s source.' };
      case 'knowledge_status': return this.knowledge.status();
      case 'knowledge_choose_folder': return this.dialogs.folder(null);
      case 'knowledge_add_folder': return this.knowledge.add(String(a.path));
      case 'knowledge_remove_folder': return this.knowledge.remove(String(a.path));
      case 'knowledge_skipped': return this.knowledge.skipped(String(a.path));
      case 'knowledge_set_model': return this.knowledge.setModel(String(a.model));
      case 'knowledge_sync': return this.knowledge.syncNow();
      case 'knowledge_stop_sync': return this.knowledge.stop();
      case 'knowledge_search': return this.knowledge.search(String(a.query));
      case 'cancel_queued': { for (const r of this.runs.values()) { const i = r.queue.findIndex((q) => q.queue_id === a.queueId); if (i >= 0) { r.queue.splice(i, 1); return true; } } return false; }
      case 'list_profiles': return this.profilesView();
      case 'save_profile': { const p = a.profile as ProfileView; const prev = (a.previousName as string | null) ?? p.name; const i = this.profiles.findIndex((x) => x.name === prev); if (i >= 0) this.profiles[i] = p; else this.profiles.push(p); return this.profilesView(); }
      case 'delete_profile': this.profiles = this.profiles.filter((p) => p.name !== a.name); return this.profilesView();
      case 'set_default_profile': this.defaultProfile = a.name; return this.profilesView();
      case 'set_persona': this.persona = a.persona; return this.profilesView();
      case 'set_session_model': { const s = this.sess(a.sessionId); s.model = (a.model as string | null) ?? null; return null; }
      case 'set_session_host': {
        const s = this.sess(a.sessionId);
        if (a.host && !this.hosts.has(a.host)) throw err('invalid_input', `there is no host \`${String(a.host)}\``, 'none');
        s.host = (a.host as string | null) ?? 'ollama';
        s.model = (a.model as string | null) ?? null;
        return null;
      }
      case 'list_hosts': return this.hosts.list();
      case 'add_host': return this.hosts.add(String(a.name), String(a.kind), String(a.url), a.apiKey == null ? null : String(a.apiKey));
      case 'remove_host': {
        this.hosts.remove(String(a.name));
        for (const s of this.sessions.values()) if (s.host === a.name) s.host = 'ollama';
        return null;
      }
      case 'switch_profile': { const s = this.sess(a.sessionId); s.profile = a.name; s.switches.push({ profile: a.name, after_message_id: s.leaf, at: now() }); return null; }
      case 'list_models': return this.models;
      case 'running_models': return this.running;
      case 'check_model_settings': return { warnings: this.warnings(a.model, a.numCtx, a.keepAliveSecs) };
      case 'set_model_settings': { const m = this.models.find((x) => x.name === a.model); if (m) m.settings = { num_ctx: a.numCtx, keep_alive_secs: a.keepAliveSecs }; return { warnings: this.warnings(a.model, a.numCtx, a.keepAliveSecs) }; }
      case 'preload_model': { if (this.preloadGate) await this.preloadGate; const m = this.models.find((x) => x.name === a.model); if (m && !this.running.some((r) => r.name === m.name)) this.running = [...this.running, { name: m.name, size: m.size, size_vram: m.size, context_length: m.settings.num_ctx, expires_at: null }]; return null; }
      case 'unload_model': this.running = this.running.filter((r) => r.name !== a.model); return null;
      case 'delete_model': { if (!this.models.some((m) => m.name === a.model)) throw err('model_not_found', `model \`${a.model}\` is not installed`, 'pull_model'); this.models = this.models.filter((m) => m.name !== a.model); return null; }
      case 'start_pull': return this.pulls.start(String(a.model));
      case 'cancel_pull': return this.pulls.cancel(String(a.model));
      case 'list_pulls': return this.pulls.list();
      case 'list_mcp_servers': return this.mcp.view();
      case 'save_mcp_config': return this.mcp.save(String(a.config));
      case 'restart_mcp_server': return this.mcp.restart(String(a.name));
      case 'mcp_server_log': return this.mcp.log(String(a.name));
      case 'list_skills': return this.skills;
      case 'show_hooks': return this.hooks;
      default: {
        const answer = this.memories.handle(cmd, a);
        if (answer === undefined) throw err('internal', `mock: unknown command ${cmd}`, 'none');
        return answer;
      }
    }
  }

  status() {
    if (!this.config.reachable) {
      return { url: this.url, reachable: false, version: null, error: err('backend_unreachable', `cannot reach the model server at ${this.url}: is it running? (Connection refused (os error 111))`, 'start_server'), models: [], adopted: null };
    }
    const models = this.models.map((m) => ({ name: m.name, capabilities: m.capabilities, size: m.size }));
    return { url: this.url, reachable: true, version: '0.12.0', error: null, models, adopted: settleSeeds(this) };
  }
  profilesView() {
    return { profiles: this.profiles.map((p) => ({ ...p })), default_profile: this.defaultProfile, persona: this.persona, tool_names: this.toolNames };
  }
  warnings(model: string, numCtx: number, keep: number): string[] {
    const m = this.models.find((x) => x.name === model);
    const w: string[] = [];
    if (m?.context_length && numCtx > m.context_length) w.push(`num_ctx ${numCtx} is more than ${model} supports (${m.context_length}).`);
    if (m && numCtx !== m.settings.num_ctx && this.running.some((r) => r.name === model)) w.push(`Changing num_ctx reloads ${model}, which is loaded now.`);
    if (keep >= 0 && keep < 60) w.push('A keep_alive under a minute makes the model reload often.');
    return w;
  }
  deliver(ch: ChannelLike, index: number, message: unknown): void {
    const internals = (window as unknown as { __TAURI_INTERNALS__: { runCallback: (id: number, d: unknown) => void } }).__TAURI_INTERNALS__;
    internals.runCallback(ch.id, { index, message });
  }

  // ---- runs
  startRun(s: Sess, prompt: string | null, text: string, parent: number | null, channel: ChannelLike): string {
    if (!this.config.reachable) throw err('backend_unreachable', `cannot reach the model server at ${this.url}: is it running? (Connection refused (os error 111))`, 'start_server');
    const profile = this.profiles.find((p) => p.name === s.profile) ?? this.profiles[0]!;
    const model = text.includes('notfound') ? 'ghost:7b' : (s.model ?? profile.model);
    const host = s.host ?? profile.backend ?? 'ollama';
    const run: Run = { id: `run${this.nextId++}`, session: s.id, prompt, events: [], timers: [], channel, index: 0, followers: [], think: new Map(), shown: new Map(), text: '', parent, queue: [], done: false, gate: null, model, host, startedAt: now(), endedAt: null, held: [], opening: [] };
    this.runs.set(run.id, run);
    // A new prompt is stored with the run that answers it, as the core does.
    const asked = prompt !== null && parent !== null ? this.messages.get(parent) : undefined;
    if (asked) asked.run_id = run.id;
    const screened = screenMessage(text, profile.input_guard);
    // A question with knowledge passages, or "search my notes …": mock/sources.ts.
    const knowing = this.sources.script(parent !== null ? this.messages.get(parent) : undefined, text);
    const script = screened.blocked ? screened.steps : [...screened.steps, ...(knowing ?? pickScript(text, profile.model, profile.input_guard, this.config, () => `apr_${this.nextId++}`))];
    run.opening = [{ type: 'run_started', model, host, profile: s.profile, context_window: 8192, protocol: this.config.protocol } as Body, ...(asked ? [this.storedBody(asked)] : [])];
    run.opening.forEach((body, i) => this.emit(run, body, 10 * (i + 1)));
    this.schedule(run, script, 30);
    return run.id;
  }

  /** Times the steps from `t` ms on, up to the first approval question (the run then waits). */
  schedule(run: Run, steps: Step[], t: number): void {
    for (const step of steps) {
      t += step.delay ?? this.config.tickMs;
      this.emit(run, step.ev, t);
      if (step.gate) {
        const { session_id, run_id, is_subagent, parent_run_id, parent_call_id } = step.ev as Partial<AgentEvent>;
        const scope = Object.fromEntries(Object.entries({ session_id, run_id, is_subagent, parent_run_id, parent_call_id }).filter(([, v]) => v !== undefined));
        const asked = step.ev as { type: string; call_id?: string; tool?: string; arguments?: unknown };
        const call = asked.type === 'approval_requested' && !is_subagent && asked.call_id && asked.tool ? { id: asked.call_id, name: asked.tool, arguments: asked.arguments ?? {} } : undefined;
        run.gate = { request_id: (step.ev as { request_id: string }).request_id, scope, ...step.gate, ...(call ? { call } : {}) };
        return;
      }
    }
  }

  /** The user's answer: resolved in the request's scope, then the script goes on. False if not waiting. */
  approve(requestId: string, decision: 'allow_once' | 'allow_for_session' | 'deny'): boolean {
    const run = [...this.runs.values()].find((r) => !r.done && r.gate?.request_id === requestId);
    if (!run?.gate) return false;
    const gate = run.gate;
    run.gate = null;
    this.send(run, { type: 'approval_resolved', request_id: requestId, decision, ...gate.scope } as Body);
    this.schedule(run, decision === 'deny' ? gate.deny : gate.allow, 0);
    return true;
  }

  /** A `/plan` card's answer: run (as edited) or cancel; then the script goes on. False if not waiting. */
  answerPlan(requestId: string, answer: PlanAnswer): boolean {
    const run = [...this.runs.values()].find((r) => !r.done && r.gate?.request_id === requestId);
    if (!run?.gate?.plan) return false;
    const gate = run.gate;
    run.gate = null;
    const edited = answer.choice === 'run' && answer.plan ? answer.plan : null;
    const choice = answer.choice === 'cancel' ? 'cancelled' : edited ? 'edited' : 'run';
    this.send(run, { type: 'plan_answered', request_id: requestId, choice, ...gate.scope } as Body);
    this.schedule(run, answer.choice === 'cancel' ? gate.deny : gate.plan!(edited), 0);
    return true;
  }

  emit(run: Run, body: Body, at: number): void {
    if (this.config.stepped) run.held.push(body);
    else run.timers.push(setTimeout(() => this.send(run, body), at));
  }

  /** Sends the next held event of the running run (config.stepped); false when none is left. */
  step(): boolean {
    const run = [...this.runs.values()].find((r) => !r.done && r.held.length > 0);
    if (!run) return false;
    this.send(run, run.held.shift()!);
    return true;
  }

  send(run: Run, body: Body): void {
    if (run.done) return;
    run.opening = run.opening.filter((b) => b !== body);
    // Queued messages are taken in between deltas after a delay.
    const due = run.queue.find((q) => now() - q.at >= this.config.queueDelayMs);
    if (due) {
      run.queue = run.queue.filter((q) => q !== due);
      this.keep(run, 'user', due.text, {});
      this.raw(run, { type: 'queued_message_sent', queue_id: due.queue_id, text: due.text } as Body);
    }
    if (body.type === 'text_delta' && !body.is_subagent) run.text += (body as { delta: string }).delta;
    const s = this.sessions.get(run.session)!;
    // A script's "the message just stored" (a /plan pass's plan or punch list).
    if (body.type === 'phase_started' && (body as { message_id?: number | null }).message_id === -1) body = { ...body, message_id: s.leaf } as Body;
    if ((body.type as string) === 'mock_store') {
      const m = (body as unknown as { message: Partial<MessageView> }).message;
      this.keep(run, m.role ?? 'assistant', m.content ?? '', m);
      return;
    }
    if (body.type === 'profile_switched') {
      // Marked where the store marks it: after the session's last message.
      const to = (body as { profile: string }).profile;
      // Already that profile: nothing marked, nothing announced.
      if (s.profile === to) return;
      s.profile = to;
      s.switches.push({ profile: to, after_message_id: s.leaf, at: now() });
      body = { ...body, after_message_id: s.leaf };
    }
    // Like the core, what the run stores is stored, and announced, before
    // the event that ends it.
    if (body.type === 'stream_end' && !body.is_subagent) {
      this.finish(run);
      const stored = (body as { stored?: Partial<MessageView>[] }).stored;
      const subs = (body as { subagents?: StoredSub[] }).subagents;
      // A sub-agent's messages are announced in its own scope, as the core's.
      for (const { run_id, view } of subs ? storeSubagents(s, run.id, subs, () => this.nextId++) : []) {
        for (const message of view.messages) {
          const scope = { session_id: view.session_id, run_id, is_subagent: true, parent_run_id: view.parent_run_id, parent_call_id: view.parent_call_id };
          this.publish(run, { ...scope, type: 'message_stored', message } as AgentEvent);
        }
      }
      if (stored) for (const m of stored) this.keep(run, m.role ?? 'assistant', m.content ?? '', m);
      else this.keep(run, 'assistant', run.text.replace(/<think>[\s\S]*?<\/think>/g, ''), {});
      afterRun(s, run, this.memories, (ev) => this.publish(run, ev), this.config.tickMs);
    } else if (body.type === 'stream_stopped' && !body.is_subagent) {
      // A script that ends stopped (a /plan cancelled at its card).
      this.finish(run);
    } else if (body.type === 'error' && !body.is_subagent) {
      this.finish(run);
      if (run.text) this.keep(run, 'assistant', run.text, { status: 'error' });
    }
    this.raw(run, body);
  }

  /** Stores a message of `run` and announces it (message_stored), as the core does. */
  keep(run: Run, role: MessageView['role'], content: string, extra: Partial<MessageView>): void {
    const m = this.addMessage(this.sessions.get(run.session)!, role, content, { ...extra, run_id: run.id });
    this.raw(run, this.storedBody(m));
  }

  /** The message_stored event of `m`: the message, and its fork when it starts one. */
  storedBody(m: Msg): Body {
    const { session: _s, ...message } = m;
    const siblings = this.children(m.session, m.parent_id).filter((x) => x.role === m.role).map((x) => x.id);
    return { type: 'message_stored', message, ...(siblings.length > 1 ? { siblings } : {}) } as Body;
  }

  raw(run: Run, body: Body): void {
    const ev = { session_id: run.session, run_id: run.id, is_subagent: false, ...body } as AgentEvent;
    // A sub-agent's events name the run of the agent that spawned it (scripts give it for deeper ones).
    if (ev.is_subagent && ev.parent_run_id == null) ev.parent_run_id = run.id;
    // A sub-agent's session and run are its own in every run (the scripts reuse names).
    if (ev.is_subagent) {
      ev.session_id = `${ev.session_id}@${run.id}`;
      ev.run_id = `${ev.run_id}@${run.id}`;
      if (ev.parent_run_id !== run.id) ev.parent_run_id = `${ev.parent_run_id}@${run.id}`;
    }
    // run_shell asks every time: "Allow for this session" is not offered for it.
    if (ev.type === 'approval_requested') ev.session_allowed = ev.tool !== 'run_shell';
    delete (ev as { stored?: unknown }).stored;
    if (!ev.is_subagent && (ev.type === 'stream_end' || ev.type === 'stream_stopped' || ev.type === 'error')) run.endedAt = now();
    if (ev.type === 'stream_end') delete (ev as { subagents?: unknown }).subagents;
    // Like the core, reasoning written inline in tags goes out as thinking;
    // any other event of the agent ends the text that held a tag back.
    // Then, like the core, the answer goes out as shown (sanitized as it
    // streams); the answer ends at the agent's next other event.
    const split = run.think.get(ev.run_id) ?? initialSplit;
    if (ev.type === 'text_delta') {
      const { state, pieces } = splitThink(split, ev.delta);
      run.think.set(ev.run_id, state);
      for (const p of pieces) this.piece(run, ev, p);
      return;
    }
    for (const p of flushThink(split)) this.piece(run, ev, p);
    run.think.delete(ev.run_id);
    if (ev.type !== 'thinking_delta') {
      const end = run.shown.get(ev.run_id)?.finish();
      if (end) this.publish(run, { ...ev, ...end } as AgentEvent);
      run.shown.delete(ev.run_id);
    }
    this.publish(run, ev);
  }

  /** One piece of an agent's answer: reasoning as it is, text as shown. */
  piece(run: Run, ev: AgentEvent, p: { thinking: boolean; text: string }): void {
    if (p.thinking) {
      this.publish(run, { ...ev, type: 'thinking_delta', delta: p.text } as AgentEvent);
      return;
    }
    const shown = run.shown.get(ev.run_id) ?? new ShownText();
    run.shown.set(ev.run_id, shown);
    const change = shown.push(p.text);
    if (change) this.publish(run, { ...ev, ...change } as AgentEvent);
  }

  /** Numbers, keeps and sends one event, as the core's live-run registry does. */
  publish(run: Run, ev: AgentEvent): void {
    // Numbered from 1, in emit order.
    ev.seq = run.events.length + 1;
    run.events.push(ev);
    // A run whose page went away (started by an earlier page load) has no channel.
    if (run.channel.id >= 0) this.deliver(run.channel, run.index++, ev);
    for (const f of run.followers) this.deliver(f.ch, f.index++, ev);
  }

  /** follow_run: the events after `after` on `ch` first, then the live ones. */
  follow(session: string, after: number, ch: ChannelLike): boolean {
    const run = [...this.runs.values()].find((r) => r.session === session && !r.done);
    if (!run) return false;
    const f = { ch, index: 0 };
    for (const ev of run.events) if ((ev.seq ?? 0) > after) this.deliver(ch, f.index++, ev);
    run.followers.push(f);
    return true;
  }

  /** Starts a run in `sessionId` as an earlier page load would have: nobody holds its channel. */
  startDetached(sessionId: string, text: string): string {
    const s = this.sess(sessionId);
    const u = this.addMessage(s, 'user', text);
    return this.startRun(s, text, text, u.id, { id: -1 } as ChannelLike);
  }

  finish(run: Run): void {
    run.done = true;
    run.held = [];
    for (const t of run.timers) clearTimeout(t);
  }

  stop(runId: string): boolean {
    const run = this.runs.get(runId);
    if (!run || run.done) return false;
    run.done = true;
    // Stopped before its first events went out (a Stop pressed while the
    // page waited for the run): as the core's, it had begun and kept the
    // prompt, and said so.
    for (const body of run.opening) this.raw(run, body);
    run.opening = [];
    const call = run.gate?.call;
    run.gate = null; // the core withdraws a waiting question on Stop, without approval_resolved
    for (const t of run.timers) clearTimeout(t);
    if (call) {
      // As the core keeps it: the answer that asked for the call is whole,
      // the call's result is cut.
      this.keep(run, 'assistant', run.text, { tool_calls: [call as MessageView['tool_calls'][number]] });
      this.keep(run, 'tool', 'cancelled: the run was stopped', { tool_call_id: call.id, tool_name: call.name, status: 'interrupted' });
    } else this.keep(run, 'assistant', run.text, { status: 'interrupted' });
    this.raw(run, { type: 'stream_stopped', reason: 'user', partial_text: run.text } as Body);
    return true;
  }
}
