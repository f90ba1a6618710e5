// Where the run on screen is in its life, as one value: none yet (idle),
// sent and not yet taken by the core (starting), going (running), asked to
// stop (stopping), or over, with how it ended (ended). What a run going on
// was started with and has done so far (its prompt, files, a profile
// switch, when it started, when it last sent anything) lives in its phase,
// so it goes when the run does instead of lingering in loose fields. Pure:
// the store (state/liveRun.svelte.ts) moves it, components read it.
import type { AttachmentView, ErrorInfo } from '../ipc';
import type { TurnModel } from './turn';

/** How a run ended: its terminal event, or a refusal before it began. */
export type RunEnd = { status: 'done' } | { status: 'stopped' } | { status: 'error'; error: ErrorInfo };

/** A run going on, as the page knows it. */
export interface Live {
  /** '' until the core names it (the start's reply or its run_started). */
  runId: string;
  /** The user's text it answers (null: a regenerate or retry), shown as a bubble until the session view takes in what the run stored. */
  prompt: string | null;
  /** The files sent with that text. */
  attachments: AttachmentView[];
  /** The profile run_started named, when it is another than the one shown (before the store knows the switch). */
  switchedTo: string | null;
  /** When it was sent (ms since the epoch); 0 when not known (a run an earlier page load started). */
  startedAt: number;
  /** When it last sent anything (ms since the epoch): how long the model has been silent. */
  heardAt: number;
}

export type RunPhase =
  | { kind: 'idle' }
  | { kind: 'starting'; live: Live }
  | { kind: 'running'; live: Live }
  | { kind: 'stopping'; live: Live }
  | { kind: 'ended'; end: RunEnd };

export const IDLE: RunPhase = { kind: 'idle' };

/** The run going on (starting, running or stopping), if any. */
export function liveOf(p: RunPhase): Live | null {
  return p.kind === 'idle' || p.kind === 'ended' ? null : p.live;
}

/** The phase with its run's facts changed; a phase without a run going on is left as it is. */
export function withLive(p: RunPhase, change: Partial<Live>): RunPhase {
  if (p.kind === 'idle' || p.kind === 'ended') return p;
  return { kind: p.kind, live: { ...p.live, ...change } };
}

/** How ended run `t` ended (from the status its terminal event gave it). */
export function endOf(t: TurnModel): RunEnd {
  if (t.status === 'error') return { status: 'error', error: t.error ?? { code: 'internal', recovery: 'none', message: 'unknown error', details: null } };
  return { status: t.status === 'done' ? 'done' : 'stopped' };
}
