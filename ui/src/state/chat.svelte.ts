// The open session: its stored messages, the answer being streamed, queued
// messages and the actions of the composer and transcript.
//
// Streaming: events from the turn's channel are logged per run (all of
// them, whatever session is shown: reopening the session replays the log,
// so nothing that came while it was being read is lost), buffered and folded into
// the turn once per animation frame (a fast model sends hundreds of deltas
// a second; rendering each would drop frames). On the run's terminal event
// the messages it stored (message_stored, with the ids regenerate, edit
// and the branch switcher need) join the session view — it is not read
// again; what the events taught that the store does not keep (tokens/s,
// the error and its recovery) stays in `extras`, keyed by run id. None of
// it survives a restart: the store keeps the spans (runTrace), not these
// notices.
import { logEvent } from '../lib/eventLog';
import * as ipc from '../ipc';
import type { AgentEvent, AttachmentView, SessionView } from '../ipc';
import { toBase64 } from '../lib/attach';
import { answeredMessage } from '../lib/guard';
import { buildRows, type Row } from '../lib/rows';
import { storedSubagent, subagentIndex } from '../lib/storedAgent';
import { notSent, runExtras, shownExtras, withRun, type RunExtras } from '../lib/runEnd';
import { isTerminal, newTurn, reduceTurn, type AgentModel, type GuardFlag, type TurnModel } from '../lib/turn';

import { announce } from '../lib/announce';
import { stillKept, storedMemoryNote, type MemoryNote } from '../lib/memoryNote';

import { app } from './app.svelte';
import { ContextMeter } from './contextMeter.svelte';
import { Drafts } from './drafts';
import { checkProtocol } from './protocol';
import { sessions } from './sessions.svelte';
import { toasts } from './toasts.svelte';

/** Every event of a run this page started, in order (kept a while after its end). */
interface RunLog {
  events: AgentEvent[];
  ended: boolean;
}

/** What a run of this page was started with: given back to its session if the core refuses it before keeping it. */
interface Sent {
  sessionId: string;
  prompt: string | null;
  files: AttachmentView[];
}

/** How long the log of an ended run stays (a reopen may still need its end). */
const ENDED_LOG_MS = 60_000;

export type { MemoryNote };

export type ChatRow = Row | { key: string; kind: 'live-switch'; profile: string };

/** Calls `fn` on the next frame (or soon, when the window is hidden and frames stop). */
function nextFrame(fn: () => void): void {
  if (document.hidden) setTimeout(fn, 50);
  else requestAnimationFrame(fn);
}

class ChatState {
  view = $state.raw<SessionView | null>(null);
  /** Shown under the conversation until the session's next turn. */
  memoryNote = $state.raw<MemoryNote | null>(null);
  /** When the run on screen last sent anything (ms since the epoch): how long the model has been silent. */
  lastHeard = $state(0);
  /** When the run on screen started (ms since the epoch). */
  runStartedAt = $state(0);
  loading = $state(false);
  /** The answer being streamed, or the last one when it failed before being stored. */
  turn = $state.raw<TurnModel | null>(null);
  /** Said to screen readers when an answer ends (a polite live region in App.svelte). */
  announcement = $state('');
  /** The user's text for the running turn, until the session is re-read. */
  livePrompt = $state<string | null>(null);
  /** Profile switch seen in a live run_started (before the store knows it). */
  liveSwitch = $state<string | null>(null);
  stopping = $state(false);
  starting = $state(false);
  queued = $state<{ queue_id: string; text: string }[]>([]);
  /** The composer's text (queued messages a run did not take come back here). */
  draft = $state('');
  /** Files attached in the composer, not sent yet (kept per session, like the draft). */
  attachments = $state.raw<AttachmentView[]>([]);
  /** Files of the running turn's message, until the session is re-read. */
  liveAttachments = $state.raw<AttachmentView[]>([]);
  /** Typed while a run was ending: sent as a normal message once it has. */
  held = $state<string[]>([]);
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
  /** The guard's findings on user messages of ended runs, by message id. */
  flaggedMessages = $state.raw(new Map<number, GuardFlag>());

  storedRows = $derived(this.view ? buildRows(this.view) : []);
  #subagents = $derived(subagentIndex(this.view?.subagents ?? [], this.view?.messages ?? []));
  rows = $derived.by((): ChatRow[] => {
    const rows: ChatRow[] = [...this.storedRows];
    if (this.livePrompt !== null) rows.push({ key: 'live-prompt', kind: 'live-prompt', text: this.livePrompt, attachments: this.liveAttachments });
    if (this.liveSwitch !== null) rows.push({ key: 'live-switch', kind: 'live-switch', profile: this.liveSwitch });
    if (this.turn) rows.push({ key: 'live', kind: 'live' });
    return rows;
  });
  running = $derived(this.starting || this.turn?.status === 'running');

  #buffer: AgentEvent[] = [];
  #scheduled = false;
  /** Runs whose channel this page holds, with their events (others are followed from their last event number). */
  #runs = new Map<string, RunLog>();

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

  #drafts = new Drafts();
  /** A user message the composer asked to edit (Up in an empty composer); its row opens the editor. */
  editRequest = $state<number | null>(null);

  /** Edit the last message the user sent on this branch (Up in an empty composer). */
  editLast(): boolean {
    const last = [...(this.view?.messages ?? [])].reverse().find((m) => m.role === 'user');
    if (!last || this.running) return false;
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
      // Another session's running message is not this one's.
      this.liveAttachments = [];
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
    this.liveSwitch = null;
    this.#buffer = [];
    this.stopping = false;
    this.held = [];
    this.context.show(view.id);
    if (view.live) {
      // A run of this page: its log has every event, also those that came
      // after the snapshot was taken; the channel brings the rest.
      const own = this.#runs.get(view.live.run_id);
      const events = own ? [...own.events] : view.live.events;
      let t = newTurn(view.live.run_id);
      for (const ev of events) t = reduceTurn(t, ev);
      this.turn = t;
      this.livePrompt = view.live.prompt;
      const sent = new Set(events.flatMap((ev) => (ev.type === 'queued_message_sent' && !ev.is_subagent ? [ev.queue_id] : [])));
      this.queued = view.live.queued.filter((q) => !sent.has(q.queue_id));
      this.context.note(events);
      // A run started by an earlier page load: its channel is gone, so
      // follow it from the last event number the snapshot holds.
      if (!own) void this.#follow(view.id, view.live.run_id, events);
      // It ended while the session was being read: finish it as usual.
      else if (events.some(isTerminal)) void this.#finish(t);
    } else {
      this.turn = null;
      this.livePrompt = null;
      this.queued = [];
    }
  }

  /**
   * Follows a run this page did not start: the core sends the events after
   * the snapshot's last number, then the live ones, so nothing is lost or
   * shown twice. A run that ended meanwhile is read back from the session.
   */
  async #follow(id: string, runId: string, seen: AgentEvent[]): Promise<void> {
    const after = seen.reduce((n, ev) => Math.max(n, ev.seq ?? 0), 0);
    const log: RunLog = { events: [...seen], ended: false };
    // Held from now on: coming back to the session replays this log
    // instead of following the run a second time.
    this.#runs.set(runId, log);
    const following = await ipc.followRun(id, after, this.#listener(id, log));
    if (following) return;
    this.#runs.delete(runId);
    if (this.sessionId === id) await this.open(id);
  }

  /** The handler given to a run's channel: logs, buffers, flushes once per frame. */
  #listener(sessionId: string, log: RunLog): (ev: AgentEvent) => void {
    let listed = false;
    return (ev) => {
      // After the run's end its post-turn work may report what memory did.
      if ((ev.type === 'memory_learned' || ev.type === 'memory_proposed') && !ev.is_subagent) {
        const prev = this.memoryNote?.sessionId === sessionId ? this.memoryNote : { sessionId, learned: [], proposed: [] };
        this.memoryNote = ev.type === 'memory_learned' ? { ...prev, learned: [...prev.learned, ...ev.facts] } : { ...prev, proposed: [...prev.proposed, ...ev.facts] };
        return;
      }
      if (ev.type === 'run_started' && !ev.is_subagent && this.memoryNote?.sessionId === sessionId) this.memoryNote = null;
      // After the run's end its post-turn work may name the session.
      if (ev.type === 'session_titled' && !ev.is_subagent) {
        sessions.titled(sessionId, ev.title);
        if (this.view?.id === sessionId) this.view = { ...this.view, title: ev.title };
        return;
      }
      logEvent(log.events, ev);
      if (!ev.is_subagent) this.#runs.set(ev.run_id, log);
      if (isTerminal(ev)) {
        log.ended = true;
        setTimeout(() => {
          if (this.#runs.get(ev.run_id) === log) this.#runs.delete(ev.run_id);
        }, ENDED_LOG_MS);
      }
      // A new session is stored with its first message, after the run
      // starts: list it (once) as soon as the answer begins.
      if (!listed && ev.type !== 'run_started') {
        listed = true;
        if (!sessions.list.some((s) => s.id === sessionId)) void sessions.refresh();
      }
      if (this.sessionId !== sessionId) {
        // Refused before it was kept, while the person is elsewhere: the
        // message waits in its own session's composer.
        if (isTerminal(ev) && !ev.is_subagent) {
          const sent = this.#sent.get(ev.run_id);
          this.#sent.delete(ev.run_id);
          if (ev.type === 'error' && ev.error.code === 'invalid_input' && ev.error.recovery === 'none') this.#giveBack(sent);
        }
        return; // shown again by replay when reopened
      }
      this.lastHeard = Date.now();
      this.#buffer.push(ev);
      if (!this.#scheduled) {
        this.#scheduled = true;
        nextFrame(() => this.#flush());
      }
    };
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#buffer;
    this.#buffer = [];
    let t = this.turn;
    let terminal: AgentEvent | null = null;
    for (const ev of batch) {
      if (!t || (t.run_id && ev.run_id !== t.run_id && !ev.is_subagent)) {
        if (ev.type !== 'run_started') continue;
        t = newTurn(ev.run_id);
      }
      // After Stop, the answer freezes at once; the terminal event still counts.
      if (this.stopping && (ev.type === 'text_delta' || ev.type === 'thinking_delta')) continue;
      if (!ev.is_subagent) {
        if (ev.type === 'run_started') checkProtocol(ev.protocol);
        if (ev.type === 'run_started' && ev.profile !== this.profile) {
          if (this.profile) this.liveSwitch = ev.profile;
          this.profile = ev.profile;
        }
        if (ev.type === 'queued_message_sent') this.queued = this.queued.filter((q) => q.queue_id !== ev.queue_id);
        // A tool moved the session to another profile: the switcher shows it now.
        if (ev.type === 'profile_switched') this.profile = ev.profile;
      }
      this.context.note([ev]);
      t = reduceTurn(t, ev);
      if (isTerminal(ev)) terminal = ev;
    }
    this.turn = t;
    if (terminal && t) void this.#finish(t);
  }

  /**
   * After the terminal event: the session view takes in what the run
   * stored (announced by message_stored, with the ids regenerate, edit and
   * the branch switcher need), so the session is not read again however
   * long it is; what the events taught that the store does not keep stays
   * in `extras`.
   */
  async #finish(t: TurnModel): Promise<void> {
    // Stopped or failed, the run took no more queued messages: they come
    // back to the composer, after what is being typed. (After stream_end
    // none is left: the run answers them all.)
    const unsent = t.status === 'done' ? [] : this.queued.map((q) => q.text);
    this.queued = [];
    if (unsent.length > 0) {
      this.draft = [this.draft.trim() ? this.draft.replace(/\s+$/, '') : '', ...unsent].filter((x) => x !== '').join('\n\n');
      toasts.show(notSent(unsent.length));
    }
    this.announcement = announce(t);
    const extras = new Map(this.extras);
    extras.set(t.run_id, runExtras(t));
    this.extras = extras;
    this.stopping = false;
    const v = this.view;
    if (!v) return;
    // An answer came while the banner says the server is out of reach: it
    // may be back (or the answer came from another backend), so ask again
    // rather than leave a stale banner above a good answer.
    // An answer that broke off or went silent may mean the server is gone:
    // asking at once shows the banner if it is (user pass 2026-12, defect 8).
    const serverMayBeGone = ['backend_unreachable', 'stream_truncated', 'timeout'].includes(t.error?.code ?? '');
    if (serverMayBeGone || (t.status === 'done' && app.backend?.reachable === false)) void app.refreshBackend();
    const view = withRun(v, t, this.liveSwitch);
    const flagged = t.userFlag ? answeredMessage(view.messages, t.run_id) : null;
    if (flagged !== null && t.userFlag) this.flaggedMessages = new Map(this.flaggedMessages).set(flagged, t.userFlag);
    this.view = view;
    this.profile = view.profile;
    // A message the core refused before keeping it (pictures for a model
    // that cannot see) comes back to the composer, files and all.
    if (t.status === 'error' && !view.messages.some((m) => m.run_id === t.run_id && m.role === 'user')) this.#giveBack(this.#sent.get(t.run_id) ?? { sessionId: v.id, prompt: this.livePrompt, files: this.liveAttachments });
    this.#sent.delete(t.run_id);
    this.livePrompt = null;
    this.liveAttachments = [];
    this.liveSwitch = null;
    // A failed or stopped answer the store did not keep stays on screen.
    const stored = view.messages.some((m) => m.run_id === t.run_id && m.role === 'assistant');
    if (stored || t.status === 'done') this.turn = null;
    void sessions.refresh();
    const held = this.held;
    this.held = [];
    if (held[0] !== undefined) {
      // Typed during the run: text only (the composer's files wait for Send).
      await this.send(held[0], []);
      for (const text of held.slice(1)) await this.queue(text);
    }
  }

  /** What each run of this page was started with, until it ends: a refusal gives it back to its own session. */
  #sent = new Map<string, Sent>();

  /**
   * A message the core refused before keeping it, back into its session's
   * composer (before what is typed there now). The person may be in
   * another session by then: it waits in that session's draft (and in the
   * store's unsent text), never in the composer they are looking at.
   */
  #giveBack(sent: Sent | undefined): void {
    if (!sent || sent.prompt === null) return;
    const merge = (typed: string) => [sent.prompt, typed.trim() ? typed : ''].filter((x) => x !== '').join('\n\n');
    const withFiles = (files: AttachmentView[]) => [...sent.files, ...files.filter((a) => !sent.files.some((l) => l.sha256 === a.sha256))];
    if (this.sessionId === sent.sessionId) {
      this.draft = merge(this.draft);
      this.attachments = withFiles(this.attachments);
      this.liveAttachments = [];
      return;
    }
    const draft = this.#drafts.giveBack(sent.sessionId, merge, withFiles);
    void ipc.saveUnsent(sent.sessionId, draft).catch((e: unknown) => console.warn('keeping the refused message failed', e));
    const title = sessions.list.find((x) => x.id === sent.sessionId)?.title || 'another session';
    toasts.show(`Your message in “${title}” was not sent; it is back in that session's composer.`);
  }

  /** Starts a run through `start`, showing `prompt` as the user's bubble. */
  async #run(prompt: string | null, start: (onEvent: (ev: AgentEvent) => void) => Promise<string>): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    this.starting = true;
    this.runStartedAt = this.lastHeard = Date.now();
    this.livePrompt = prompt;
    this.liveSwitch = null;
    this.turn = newTurn('');
    const log: RunLog = { events: [], ended: false };
    const sent: Sent = { sessionId: id, prompt, files: this.liveAttachments };
    try {
      const runId = await start(this.#listener(id, log));
      if (!log.ended) this.#sent.set(runId, sent);
      if (!this.#runs.has(runId) && !log.ended) this.#runs.set(runId, log);
      if (this.turn && !this.turn.run_id) this.turn = { ...this.turn, run_id: runId };
    } catch (e) {
      const info = ipc.errorInfo(e);
      this.#giveBack(sent);
      // Shown where it was sent: the session on screen may be another by now.
      if (this.sessionId !== id) return;
      this.turn = { ...newTurn(''), status: 'error', error: info };
      if (info.code === 'backend_unreachable') void app.refreshBackend();
    } finally {
      this.starting = false;
    }
  }

  /** Sends `text` with the files attached in the composer (which then empties). */
  async send(text: string, files: AttachmentView[] = this.attachments): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    if (files === this.attachments) this.attachments = [];
    this.liveAttachments = files;
    const refs = files.map((f) => ({ sha256: f.sha256, name: f.name }));
    await this.#run(text, (cb) => ipc.sendMessage(id, text, refs, cb));
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

  /** While a run goes on, a message joins its queue (or waits for its end). */
  async queue(text: string): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    try {
      const r = await ipc.queueMessage(id, text);
      if (r.kind === 'queued') this.queued = [...this.queued, { queue_id: r.queue_id, text }];
      else if (this.running) this.held = [...this.held, text];
      else await this.send(text, []);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  async cancelQueued(queueId: string): Promise<void> {
    const id = this.sessionId;
    if (!id) return;
    const gone = await ipc.cancelQueued(id, queueId);
    // false: it was already sent; queued_message_sent will show it.
    if (gone) this.queued = this.queued.filter((q) => q.queue_id !== queueId);
  }

  /**
   * The guard's finding on stored user message `messageId`: kept from an
   * ended run, or reported by the running one when it answers that
   * message again (regenerate: no new prompt is shown).
   */
  userFlag(messageId: number): GuardFlag | null {
    const kept = this.flaggedMessages.get(messageId);
    if (kept) return kept;
    const t = this.turn;
    if (!t?.userFlag || this.livePrompt !== null || !this.view) return null;
    return answeredMessage(this.view.messages, t.run_id) === messageId ? t.userFlag : null;
  }

  /** The stored sub-agent transcript started by spawn_agent call `callId` of the answer of run `runId`, if any. */
  storedSub(callId: string, args: unknown, runId: string | null): AgentModel | null {
    return storedSubagent({ callId, args, runId }, this.#subagents);
  }

  cancelHeld(index: number): void {
    this.held = this.held.filter((_, i) => i !== index);
  }

  async stop(): Promise<void> {
    const runId = this.turn?.run_id;
    if (!runId || this.turn?.status !== 'running' || this.stopping) return;
    this.stopping = true;
    await ipc.stopRun(runId);
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
    if (!id || this.running) return;
    this.#truncateAt(messageId);
    await this.#run(null, (cb) => ipc.regenerate(id, messageId, cb));
  }

  /** Retry after a failed run: answer the trailing user message again. */
  async retry(): Promise<void> {
    const id = this.sessionId;
    if (!id || this.running) return;
    const failed = this.turn?.run_id;
    if (failed && this.view) {
      // Its stored partial answer is replaced by the new attempt; the
      // user's message (stored with the same run id) is what it answers.
      this.view = { ...this.view, messages: this.view.messages.filter((m) => m.run_id !== failed || m.role === 'user') };
    }
    await this.#run(null, (cb) => ipc.regenerate(id, null, cb));
  }

  async editAndResend(messageId: number, text: string): Promise<void> {
    const id = this.sessionId;
    if (!id || this.running) return;
    this.#truncateAt(messageId);
    await this.#run(text, (cb) => ipc.editAndResend(id, messageId, text, cb));
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
    this.turn = null;
    this.livePrompt = null;
    this.queued = [];
  }
}

export const chat = new ChatState();
