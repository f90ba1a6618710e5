// The open session's view: its stored messages and branch, its profile,
// model and host, the composer's draft and files (each session keeps its
// own), and the actions of the composer and transcript. The run on screen
// (its lifecycle, the answer being streamed, queued messages) is `run`,
// a LiveRun (liveRun.svelte.ts); when it ends, this view takes in the
// messages it stored (the session is not read again), and what the events
// taught that the store does not keep (tokens/s, the error and its
// recovery) stays in `extras`, keyed by run id, for the session on screen:
// a session shown again has the same from the events the core kept with
// each answer (`shownExtras`).
import * as ipc from '../ipc';
import type { AgentEvent, AttachmentView, SessionView } from '../ipc';
import { toBase64 } from '../lib/attach';
import { answeredMessage } from '../lib/guard';
import { buildRows, type Row } from '../lib/rows';
import { storedSubagent, subagentIndex } from '../lib/storedAgent';
import { notSent, runExtras, shownExtras, withRun, type RunExtras } from '../lib/runEnd';
import type { AgentModel, GuardFlag, TurnModel } from '../lib/turn';

import { stillKept, storedMemoryNote, type MemoryNote } from '../lib/memoryNote';

import { app } from './app.svelte';
import { ContextMeter } from './contextMeter.svelte';
import { Drafts } from './drafts';
import { LiveRun, type Sent } from './liveRun.svelte';
import { sessions } from './sessions.svelte';
import { toasts } from './toasts.svelte';

/** How many guard findings on user messages are kept (they are rare; this only bounds a long day). */
const FLAGS_KEPT = 200;

export type { MemoryNote };

export type ChatRow = Row | { key: string; kind: 'live-switch'; profile: string };

class ChatState {
  view = $state.raw<SessionView | null>(null);
  /** Shown under the conversation until the session's next turn. */
  memoryNote = $state.raw<MemoryNote | null>(null);
  loading = $state(false);
  /** The composer's text (queued messages a run did not take come back here). */
  draft = $state('');
  /** Files attached in the composer, not sent yet (kept per session, like the draft). */
  attachments = $state.raw<AttachmentView[]>([]);
  /** What the ended runs of the session on screen showed besides their messages, by run id. */
  extras = $state.raw(new Map<string, RunExtras>());
  profile = $state('');
  /** The model this session uses instead of its profile's (the model picker), if any. */
  model = $state<string | null>(null);
  /** The host this session stays on (null before its first answer: its profile's). */
  host = $state<string | null>(null);
  /** What each stored answer showed besides its messages, from the events the core kept with its run. */
  shownExtras = $derived(new Map((this.view?.answers_shown ?? []).map((a) => [a.run_id, shownExtras(this.view?.id ?? '', a)] as const)));
  /** What each stored answer's run says: its model, host, and whether a crash cut it off; by run id. */
  answerRuns = $derived(new Map((this.view?.answer_runs ?? []).map((a) => [a.run_id, a] as const)));
  /** The open session's context meter. */
  context = new ContextMeter();
  /** The guard's findings on user messages of ended runs, by message id (the newest FLAGS_KEPT). */
  flaggedMessages = $state.raw(new Map<number, GuardFlag>());
  /** The run on screen: its phase, the answer it streams, the messages waiting for it. */
  readonly run = new LiveRun(
    {
      shown: () => this.sessionId,
      aside: (id, ev) => this.#aside(id, ev),
      answersAs: (profile) => this.#answersAs(profile),
      takeIn: (t, switchedTo) => this.#takeIn(t, switchedTo),
      putBack: (texts) => this.#putBack(texts),
      giveBack: (sent) => this.#giveBack(sent),
      send: (text) => this.send(text, []),
      reopen: (id) => this.open(id),
    },
    this.context,
  );

  storedRows = $derived(this.view ? buildRows(this.view) : []);
  #subagents = $derived(subagentIndex(this.view?.subagents ?? [], this.view?.messages ?? []));
  rows = $derived.by((): ChatRow[] => {
    const rows: ChatRow[] = [...this.storedRows];
    const live = this.run.live;
    if (live && live.prompt !== null) rows.push({ key: 'live-prompt', kind: 'live-prompt', text: live.prompt, attachments: live.attachments });
    if (live && live.switchedTo !== null) rows.push({ key: 'live-switch', kind: 'live-switch', profile: live.switchedTo });
    if (this.run.turn) rows.push({ key: 'live', kind: 'live' });
    return rows;
  });

  get sessionId(): string | null {
    return this.view?.id ?? null;
  }

  async open(id: string): Promise<void> {
    this.loading = true;
    try {
      const view = await ipc.openSession(id);
      this.#show(view);
      void app.savePrefs({ last_session: id });
    } catch (e) {
      toasts.error(`Could not open the session: ${ipc.errorInfo(e).message}`);
    } finally {
      this.loading = false;
    }
  }

  async create(): Promise<void> {
    const id = await ipc.newSession();
    await sessions.refresh();
    await this.open(id);
  }

  /**
   * A new chat in project `project`: its session is put there before it
   * opens (the core makes it then), so its first answer already uses the
   * project's workspace, profile, model and instructions.
   */
  async createIn(project: string): Promise<void> {
    const id = await ipc.newSession();
    if (await sessions.move(id, project)) await this.open(id);
  }

  /** The project of the open chat (an id): as the sidebar's list last read it (it follows moves), else as the chat was opened. */
  get project(): string | null {
    const id = this.sessionId;
    if (!id) return null;
    const listed = sessions.list.find((s) => s.id === id);
    return listed ? (listed.project ?? null) : (this.view?.project ?? null);
  }

  #drafts = new Drafts();
  /** A user message the composer asked to edit (Up in an empty composer); its row opens the editor. */
  editRequest = $state<number | null>(null);

  /** Edit the last message the user sent on this branch (Up in an empty composer). */
  editLast(): boolean {
    const last = [...(this.view?.messages ?? [])].reverse().find((m) => m.role === 'user');
    if (!last || this.run.busy) return false;
    this.editRequest = last.id;
    return true;
  }

  /** Shows a stored "Remembered" line with the facts memory still holds (one undone or deleted since is left out). */
  async #stillKept(note: MemoryNote): Promise<void> {
    try {
      const kept = stillKept(note, new Set((await ipc.listMemories()).map((m) => m.id)));
      if (kept && this.view?.id === note.sessionId && this.memoryNote === null) this.memoryNote = kept;
    } catch {
      // Memory cannot be read: the line is left out rather than offer an Undo that may fail.
    }
  }

  /** Shows a fresh SessionView, replaying a run still going in it. */
  #show(view: SessionView): void {
    const before = this.view?.id;
    if (before !== view.id) {
      // Each session keeps its own unsent text and files.
      const shown = this.#drafts.swap(before, { text: this.draft, files: this.attachments }, view.id, view.unsent);
      this.draft = shown.text;
      this.attachments = shown.files;
      // The answers of the session left get their extras from the core's
      // record (`shownExtras`) when it is shown again.
      if (this.extras.size > 0) this.extras = new Map();
    }
    this.view = view;
    if (before !== view.id) this.editRequest = null;
    if (this.memoryNote?.sessionId !== view.id) {
      this.memoryNote = null;
      // During a run the last stored answer is the previous turn's.
      const note = view.live ? null : storedMemoryNote(view);
      if (note) void this.#stillKept(note);
    }
    this.profile = view.profile;
    this.model = view.model;
    this.host = view.host;
    this.run.show(view, before === view.id);
  }

  /** What a run says about its session rather than its answer: what memory did, the session's title. True when taken. */
  #aside(sessionId: string, ev: AgentEvent): boolean {
    if (ev.is_subagent) return false;
    // After the run's end its post-turn work may report what memory did.
    if (ev.type === 'memory_learned' || ev.type === 'memory_proposed') {
      const prev = this.memoryNote?.sessionId === sessionId ? this.memoryNote : { sessionId, learned: [], proposed: [] };
      this.memoryNote = ev.type === 'memory_learned' ? { ...prev, learned: [...prev.learned, ...ev.facts] } : { ...prev, proposed: [...prev.proposed, ...ev.facts] };
      return true;
    }
    if (ev.type === 'run_started' && this.memoryNote?.sessionId === sessionId) this.memoryNote = null;
    // After the run's end its post-turn work may name the session.
    if (ev.type === 'session_titled') {
      sessions.titled(sessionId, ev.title);
      if (this.view?.id === sessionId) this.view = { ...this.view, title: ev.title };
      return true;
    }
    return false;
  }

  /** The run answers as `profile` (its run_started, or a tool's switch): true when that switched from another one shown. */
  #answersAs(profile: string): boolean {
    if (profile === this.profile) return false;
    const was = this.profile;
    this.profile = profile;
    return was !== '';
  }

  /** Ended run `t` taken into the view: what it stored, the profile switches seen, what it showed besides. */
  #takeIn(t: TurnModel, switchedTo: string | null): SessionView | null {
    this.extras = new Map(this.extras).set(t.run_id, runExtras(t));
    const v = this.view;
    if (!v) return null;
    const view = withRun(v, t, switchedTo);
    const flagged = t.userFlag ? answeredMessage(view.messages, t.run_id) : null;
    if (flagged !== null && t.userFlag) {
      const flags = new Map(this.flaggedMessages);
      flags.delete(flagged);
      flags.set(flagged, t.userFlag);
      for (const id of flags.keys()) {
        if (flags.size <= FLAGS_KEPT) break;
        flags.delete(id);
      }
      this.flaggedMessages = flags;
    }
    this.view = view;
    this.profile = view.profile;
    return view;
  }

  /** Queued messages a run did not take, back in the composer after what is typed there. */
  #putBack(texts: string[]): void {
    this.draft = [this.draft.trim() ? this.draft.replace(/\s+$/, '') : '', ...texts].filter((x) => x !== '').join('\n\n');
    toasts.show(notSent(texts.length));
  }

  /**
   * A message the core refused before keeping it, back into its session's
   * composer (before what is typed there now). The person may be in
   * another session by then: it waits in that session's draft (and in the
   * store's unsent text), never in the composer they are looking at.
   */
  #giveBack(sent: Sent): void {
    if (sent.prompt === null) return;
    const prompt = sent.prompt;
    const merge = (typed: string) => [prompt, typed.trim() ? typed : ''].filter((x) => x !== '').join('\n\n');
    const withFiles = (files: AttachmentView[]) => [...sent.files, ...files.filter((a) => !sent.files.some((l) => l.sha256 === a.sha256))];
    if (this.sessionId === sent.sessionId) {
      this.draft = merge(this.draft);
      this.attachments = withFiles(this.attachments);
      return;
    }
    const draft = this.#drafts.giveBack(sent.sessionId, merge, withFiles);
    void ipc.saveUnsent(sent.sessionId, draft).catch((e: unknown) => console.warn('keeping the refused message failed', e));
    const title = sessions.list.find((x) => x.id === sent.sessionId)?.title || 'another session';
    toasts.show(`Your message in “${title}” was not sent; it is back in that session's composer.`);
  }

  /** Sends `text` with the files attached in the composer (which then empties). */
  async send(text: string, files: AttachmentView[] = this.attachments): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    if (files === this.attachments) this.attachments = [];
    const refs = files.map((f) => ({ sha256: f.sha256, name: f.name }));
    await this.run.start(id, text, files, (cb) => ipc.sendMessage(id, text, refs, cb));
  }

  /** Attach `files` in the composer; one that cannot be attached says why in a toast. */
  async attach(files: File[]): Promise<void> {
    const id = this.sessionId;
    for (const f of files) {
      try {
        const a = await ipc.attachFile(f.name || 'pasted', await toBase64(f));
        // The person may have switched sessions meanwhile: it goes where it was attached.
        if (this.sessionId === id) this.attachments = [...this.attachments.filter((x) => x.sha256 !== a.sha256), a];
        else if (id) this.#drafts.attach(id, a);
      } catch (e) {
        toasts.error(ipc.errorInfo(e).message);
      }
    }
  }

  /** Take a file back out of the composer. */
  detach(sha256: string): void {
    this.attachments = this.attachments.filter((a) => a.sha256 !== sha256);
  }

  /**
   * The guard's finding on stored user message `messageId`: kept from an
   * ended run, or reported by the running one when it answers that
   * message again (regenerate: no new prompt is shown).
   */
  userFlag(messageId: number): GuardFlag | null {
    const kept = this.flaggedMessages.get(messageId);
    if (kept) return kept;
    const t = this.run.turn;
    if (!t?.userFlag || (this.run.live?.prompt ?? null) !== null || !this.view) return null;
    return answeredMessage(this.view.messages, t.run_id) === messageId ? t.userFlag : null;
  }

  /** The stored sub-agent transcript started by spawn_agent call `callId` of the answer of run `runId`, if any. */
  storedSub(callId: string, args: unknown, runId: string | null): AgentModel | null {
    return storedSubagent({ callId, args, runId }, this.#subagents);
  }

  /** Hides the messages from `messageId` on while their replacement streams. */
  #truncateAt(messageId: number): void {
    const v = this.view;
    if (!v) return;
    const at = v.messages.findIndex((m) => m.id === messageId);
    if (at >= 0) this.view = { ...v, messages: v.messages.slice(0, at), live: null };
  }

  async regenerate(messageId: number): Promise<void> {
    const id = this.sessionId;
    if (!id || this.run.busy) return;
    this.#truncateAt(messageId);
    await this.run.start(id, null, [], (cb) => ipc.regenerate(id, messageId, cb));
  }

  /** Retry after a failed run: answer the trailing user message again. */
  async retry(): Promise<void> {
    const id = this.sessionId;
    if (!id || this.run.busy) return;
    const failed = this.run.turn?.run_id;
    if (failed && this.view) {
      // Its stored partial answer is replaced by the new attempt; the
      // user's message (stored with the same run id) is what it answers.
      this.view = { ...this.view, messages: this.view.messages.filter((m) => m.run_id !== failed || m.role === 'user') };
    }
    await this.run.start(id, null, [], (cb) => ipc.regenerate(id, null, cb));
  }

  async editAndResend(messageId: number, text: string): Promise<void> {
    const id = this.sessionId;
    if (!id || this.run.busy) return;
    this.#truncateAt(messageId);
    await this.run.start(id, text, [], (cb) => ipc.editAndResend(id, messageId, text, cb));
  }

  async switchBranch(messageId: number): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    try {
      this.#show(await ipc.switchBranch(id, messageId));
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  async switchProfile(name: string): Promise<void> {
    const id = this.sessionId;
    if (!id || name === this.profile) return;
    try {
      await ipc.switchProfile(id, name);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
      return;
    }
    const v = this.view;
    this.profile = name;
    if (v) {
      // Mark it where it happened; the store records the same switch.
      const last = v.messages[v.messages.length - 1]?.id ?? null;
      this.view = { ...v, profile: name, switches: [...v.switches, { profile: name, after_message_id: last, at: Date.now() }] };
    }
  }

  /** Picks the model of this session (null: the profile's) from its next answer, without touching the profile. */
  async setModel(model: string | null): Promise<void> {
    const id = this.sessionId;
    if (!id || model === this.model) return;
    try {
      await ipc.setSessionModel(id, model);
      this.model = model;
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  /** Moves this session to `host` with `model` (a model on another host, from the picker); it stays there. */
  async setHost(host: string, model: string | null): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    try {
      await ipc.setSessionHost(id, host, model);
      this.host = host;
      this.model = model;
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  /** Turns on or off the knowledge passages sent with each message of this chat (the composer's Knowledge switch). */
  async setKnowledge(on: boolean): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    try {
      await ipc.setSessionKnowledge(id, on);
      if (this.view?.id === id) this.view = { ...this.view, knowledge: on };
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  /** The open session was deleted: show the newest other one, or a new one, so the composer stays usable (the sidebar offers Undo). */
  async leave(): Promise<void> {
    this.close();
    const next = sessions.list[0];
    if (next) await this.open(next.id);
    else await this.create();
  }

  /** The deleted session was open: show nothing (the sidebar offers Undo). */
  close(): void {
    this.view = null;
    this.run.reset();
  }
}

export const chat = new ChatState();
