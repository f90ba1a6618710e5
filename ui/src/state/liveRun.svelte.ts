// The run on screen: where it is in its life (one RunPhase, lib/runPhase.ts:
// idle, starting, running, stopping, ended), the answer it streams, the
// messages waiting for it, and what feeds them. The open session's view
// (chat.svelte.ts) owns it and takes in what the run stored when it ends
// (RunHost).
//
// Streaming: events from the turn's channel are logged per run (all of
// them, whatever session is shown: reopening the session replays the log,
// so nothing that came while it was being read is lost), buffered and
// folded into the turn once per animation frame (a fast model sends
// hundreds of deltas a second; rendering each would drop frames). A run an
// earlier page load started is followed from the last event number the
// session's snapshot holds. On the terminal event the phase ends, saying
// how, and the session view takes in the messages the run stored
// (message_stored) instead of reading the session again.
import { logEvent } from '../lib/eventLog';
import * as ipc from '../ipc';
import type { AgentEvent, AttachmentView, QueuedView, SessionView } from '../ipc';
import { announce } from '../lib/announce';
import { endOf, IDLE, liveOf, withLive, type Live, type RunPhase } from '../lib/runPhase';
import { isTerminal, newTurn, reduceTurn, type TurnModel } from '../lib/turn';

import { app } from './app.svelte';
import type { ContextMeter } from './contextMeter.svelte';
import { checkProtocol } from './protocol';
import { sessions } from './sessions.svelte';
import { toasts } from './toasts.svelte';

/** Every event of a run this page holds, in order (kept a while after its end). */
interface RunLog {
  events: AgentEvent[];
  ended: boolean;
  /** When this page sent it (0: an earlier page load did). */
  startedAt: number;
  /** When it last sent anything. */
  heardAt: number;
}

/** What a run of this page was started with: given back to its session if the core refuses it before keeping it. */
export interface Sent {
  sessionId: string;
  prompt: string | null;
  files: AttachmentView[];
}

/** What the run needs of the open session's view. */
export interface RunHost {
  /** The session on screen. */
  shown(): string | null;
  /** An event about the session rather than its answer (what memory did, its title): true when it was taken. */
  aside(sessionId: string, ev: AgentEvent): boolean;
  /** The run answers as `profile`: true when that is a switch from another profile shown. */
  answersAs(profile: string): boolean;
  /** Run `t` ended: the session view takes in what it stored (null: no session is open). */
  takeIn(t: TurnModel, switchedTo: string | null): SessionView | null;
  /** Queued messages the run did not take, back in the composer. */
  putBack(texts: string[]): void;
  /** A message the core refused before keeping it, back in its own session's composer. */
  giveBack(sent: Sent): void;
  /** Sends `text` as a new message (text only). */
  send(text: string): Promise<void>;
  /** Reads session `id` again (a followed run ended before it could be followed). */
  reopen(id: string): Promise<void>;
}

/** How long the log of an ended run stays (a reopen may still need its end). */
const ENDED_LOG_MS = 60_000;

/** Calls `fn` on the next frame (or soon, when the window is hidden and frames stop). */
function nextFrame(fn: () => void): void {
  if (document.hidden) setTimeout(fn, 50);
  else requestAnimationFrame(fn);
}

export class LiveRun {
  phase = $state.raw<RunPhase>(IDLE);
  /** The run going on (starting, running or stopping), if any. */
  live = $derived(liveOf(this.phase));
  /** A run is starting, running or stopping: Send queues, Stop shows. */
  busy = $derived(this.live !== null);
  /** The answer being streamed, or the last one when it failed or stopped before being stored. */
  turn = $state.raw<TurnModel | null>(null);
  /** Sent to the run, which takes them in at its next turn boundary. */
  queued = $state<QueuedView[]>([]);
  /** Typed while the run was ending: sent as a normal message once it has. */
  held = $state<string[]>([]);
  /** Said to screen readers when an answer ends (a polite live region in App.svelte). */
  announcement = $state('');

  #host: RunHost;
  #context: ContextMeter;
  #buffer: AgentEvent[] = [];
  #scheduled = false;
  /** Runs whose channel this page holds, with their events (others are followed from their last event number). */
  #runs = new Map<string, RunLog>();
  /** The log of the run the phase is about (a reply to an older start is not this run's). */
  #current: RunLog | null = null;
  /** Stop was pressed before the core named the run: asked once the name comes. */
  #stopWanted = false;
  /** What each run of this page was started with, until it ends: a refusal gives it back to its own session. */
  #sent = new Map<string, Sent>();

  constructor(host: RunHost, context: ContextMeter) {
    this.#host = host;
    this.#context = context;
  }

  /** Shows the run of session `view` (none: idle), replaying what this page logged of it, or following it. */
  show(view: SessionView, sameSession: boolean): void {
    // The files of the running message stay while its own session is shown again.
    const files = sameSession ? (this.live?.attachments ?? []) : [];
    this.#buffer = [];
    this.#stopWanted = false;
    this.held = [];
    this.#context.show(view.id);
    if (!view.live) {
      this.reset();
      return;
    }
    // A run of this page: its log has every event, also those that came
    // after the snapshot was taken; the channel brings the rest.
    const runId = view.live.run_id;
    const own = this.#runs.get(runId);
    const log: RunLog = own ?? { events: [...view.live.events], ended: false, startedAt: 0, heardAt: Date.now() };
    const events = [...log.events];
    let t = newTurn(runId);
    for (const ev of events) t = reduceTurn(t, ev);
    this.turn = t;
    this.#current = log;
    this.phase = { kind: 'running', live: { runId, prompt: view.live.prompt, attachments: files, switchedTo: null, startedAt: log.startedAt, heardAt: log.heardAt } };
    const sent = new Set(events.flatMap((ev) => (ev.type === 'queued_message_sent' && !ev.is_subagent ? [ev.queue_id] : [])));
    this.queued = view.live.queued.filter((q) => !sent.has(q.queue_id));
    this.#context.note(events);
    // A run started by an earlier page load: its channel is gone, so
    // follow it from the last event number the snapshot holds.
    if (!own) void this.#follow(view.id, runId, log);
    // It ended while the session was being read: finish it as usual.
    else if (events.some(isTerminal)) void this.#finish(t);
  }

  /** No run on screen (no session, or one with none going on). */
  reset(): void {
    this.phase = IDLE;
    this.turn = null;
    this.queued = [];
    this.held = [];
    this.#current = null;
  }

  /**
   * Starts a run of session `sessionId` through `begin`, showing `prompt`
   * (with `files`) as the user's bubble: starting until the core answers
   * with the run's id, running after; a refusal ends it at once and gives
   * the message back.
   */
  async start(sessionId: string, prompt: string | null, files: AttachmentView[], begin: (onEvent: (ev: AgentEvent) => void) => Promise<string>): Promise<void> {
    const now = Date.now();
    const log: RunLog = { events: [], ended: false, startedAt: now, heardAt: now };
    this.#current = log;
    this.#stopWanted = false;
    this.phase = { kind: 'starting', live: { runId: '', prompt, attachments: files, switchedTo: null, startedAt: now, heardAt: now } };
    this.turn = newTurn('');
    const sent: Sent = { sessionId, prompt, files };
    try {
      const runId = await begin(this.#listener(sessionId, log));
      if (!log.ended) this.#sent.set(runId, sent);
      if (!this.#runs.has(runId) && !log.ended) this.#runs.set(runId, log);
      // Another session (or a later run) is on screen now: its phase is not this run's.
      if (this.#current !== log) return;
      if (this.turn && !this.turn.run_id) this.turn = { ...this.turn, run_id: runId };
      const p = this.phase;
      if (p.kind === 'starting') this.phase = { kind: 'running', live: { ...p.live, runId: p.live.runId || runId } };
      else if (p.kind === 'stopping') {
        this.phase = withLive(p, { runId: p.live.runId || runId });
        await this.#askStop();
      }
    } catch (e) {
      const info = ipc.errorInfo(e);
      this.#host.giveBack(sent);
      // Shown where it was sent: the session on screen may be another by
      // now, or have a later run going.
      if (this.#host.shown() !== sessionId || (this.busy && this.#current !== log)) return;
      this.#current = null;
      this.turn = { ...newTurn(''), status: 'error', error: info };
      this.phase = { kind: 'ended', end: { status: 'error', error: info } };
      if (info.code === 'backend_unreachable') void app.refreshBackend();
    }
  }

  /** Stops the run going on: its answer freezes at once; the core is asked as soon as it has named the run. */
  async stop(): Promise<void> {
    const p = this.phase;
    if (p.kind !== 'starting' && p.kind !== 'running') return;
    this.phase = { kind: 'stopping', live: p.live };
    this.#stopWanted = true;
    await this.#askStop();
  }

  async #askStop(): Promise<void> {
    const runId = this.live?.runId;
    if (this.phase.kind !== 'stopping' || !this.#stopWanted || !runId) return;
    this.#stopWanted = false;
    await ipc.stopRun(runId);
  }

  /** While a run goes on, a message joins its queue (or waits for its end). */
  async queue(text: string): Promise<void> {
    const id = this.#host.shown();
    if (!id) return;
    try {
      const r = await ipc.queueMessage(id, text);
      if (r.kind === 'queued') this.queued = [...this.queued, { queue_id: r.queue_id, text }];
      else if (this.busy) this.held = [...this.held, text];
      else await this.#host.send(text);
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    }
  }

  async cancelQueued(queueId: string): Promise<void> {
    const id = this.#host.shown();
    if (!id) return;
    const gone = await ipc.cancelQueued(id, queueId);
    // false: it was already sent; queued_message_sent will show it.
    if (gone) this.queued = this.queued.filter((q) => q.queue_id !== queueId);
  }

  cancelHeld(index: number): void {
    this.held = this.held.filter((_, i) => i !== index);
  }

  /**
   * Follows a run this page did not start: the core sends the events after
   * the snapshot's last number, then the live ones, so nothing is lost or
   * shown twice. A run that ended meanwhile is read back from the session.
   */
  async #follow(id: string, runId: string, log: RunLog): Promise<void> {
    const after = log.events.reduce((n, ev) => Math.max(n, ev.seq ?? 0), 0);
    // Held from now on: coming back to the session replays this log
    // instead of following the run a second time.
    this.#runs.set(runId, log);
    const following = await ipc.followRun(id, after, this.#listener(id, log));
    if (following) return;
    this.#runs.delete(runId);
    if (this.#host.shown() === id) await this.#host.reopen(id);
  }

  /** The handler given to a run's channel: logs, buffers, flushes once per frame. */
  #listener(sessionId: string, log: RunLog): (ev: AgentEvent) => void {
    let listed = false;
    return (ev) => {
      if (this.#host.aside(sessionId, ev)) return;
      logEvent(log.events, ev);
      log.heardAt = Date.now();
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
      if (this.#host.shown() !== sessionId) {
        // Refused before it was kept, while the person is elsewhere: the
        // message waits in its own session's composer.
        if (isTerminal(ev)) {
          const sent = this.#sent.get(ev.run_id);
          this.#sent.delete(ev.run_id);
          if (sent && ev.type === 'error' && ev.error.code === 'invalid_input' && ev.error.recovery === 'none') this.#host.giveBack(sent);
        }
        return; // shown again by replay when reopened
      }
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
    let terminal = false;
    let switchedTo: string | null = null;
    // After Stop, the answer freezes at once; the terminal event still counts.
    const frozen = this.phase.kind === 'stopping';
    for (const ev of batch) {
      if (!t || (t.run_id && ev.run_id !== t.run_id && !ev.is_subagent)) {
        if (ev.type !== 'run_started') continue;
        t = newTurn(ev.run_id);
      }
      if (frozen && (ev.type === 'text_delta' || ev.type === 'thinking_delta')) continue;
      if (!ev.is_subagent) {
        if (ev.type === 'run_started') {
          checkProtocol(ev.protocol);
          if (this.#host.answersAs(ev.profile)) switchedTo = ev.profile;
        }
        if (ev.type === 'queued_message_sent') this.queued = this.queued.filter((q) => q.queue_id !== ev.queue_id);
        // A tool moved the session to another profile: the switcher shows it now.
        if (ev.type === 'profile_switched') this.#host.answersAs(ev.profile);
      }
      this.#context.note([ev]);
      t = reduceTurn(t, ev);
      if (isTerminal(ev)) terminal = true;
    }
    this.turn = t;
    const live = this.live;
    if (live) {
      // run_started names the run before the start's reply may: a Stop pressed meanwhile can go now.
      const runId = live.runId || (t?.run_id ?? '');
      this.phase = withLive(this.phase, { heardAt: Date.now(), runId, switchedTo: switchedTo ?? live.switchedTo });
      if (runId !== live.runId) void this.#askStop();
    }
    if (terminal && t) void this.#finish(t);
  }

  /**
   * After the terminal event: the phase ends, saying how; the session view
   * takes in what the run stored (announced by message_stored, with the ids
   * regenerate, edit and the branch switcher need), so the session is not
   * read again however long it is.
   */
  async #finish(t: TurnModel): Promise<void> {
    const live = this.live;
    // Stopped or failed, the run took no more queued messages: they come
    // back to the composer, after what is being typed. (After stream_end
    // none is left: the run answers them all.)
    const unsent = t.status === 'done' ? [] : this.queued.map((q) => q.text);
    this.queued = [];
    if (unsent.length > 0) this.#host.putBack(unsent);
    this.announcement = announce(t);
    this.phase = { kind: 'ended', end: endOf(t) };
    const view = this.#host.takeIn(t, live?.switchedTo ?? null);
    if (!view) return;
    // An answer came while the banner says the server is out of reach: it
    // may be back (or the answer came from another backend), so ask again
    // rather than leave a stale banner above a good answer.
    // An answer that broke off or went silent may mean the server is gone:
    // asking at once shows the banner if it is (user pass 2026-12, defect 8).
    const serverMayBeGone = ['backend_unreachable', 'stream_truncated', 'timeout'].includes(t.error?.code ?? '');
    if (serverMayBeGone || (t.status === 'done' && app.backend?.reachable === false)) void app.refreshBackend();
    // A message the core refused before keeping it (pictures for a model
    // that cannot see) comes back to the composer, files and all.
    if (t.status === 'error' && !view.messages.some((m) => m.run_id === t.run_id && m.role === 'user')) {
      this.#host.giveBack(this.#sent.get(t.run_id) ?? { sessionId: view.id, prompt: live?.prompt ?? null, files: live?.attachments ?? [] });
    }
    this.#sent.delete(t.run_id);
    // A failed or stopped answer the store did not keep stays on screen.
    const stored = view.messages.some((m) => m.run_id === t.run_id && m.role === 'assistant');
    if (stored || t.status === 'done') this.turn = null;
    void sessions.refresh();
    const held = this.held;
    this.held = [];
    if (held[0] !== undefined) {
      // Typed during the run: text only (the composer's files wait for Send).
      await this.#host.send(held[0]);
      for (const text of held.slice(1)) await this.queue(text);
    }
  }
}
