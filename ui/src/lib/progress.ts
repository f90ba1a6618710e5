// What the model is doing while a run waits on it, from the core's
// progress events (user pass 2026-12, major 2: "no silent minutes"):
// loading the model, reading the prompt (its size), writing the answer
// (tokens so far) or writing a tool call (its arguments so far). Null
// while a tool runs, a question waits, or between calls.
import type { AgentEvent } from '../bindings';

export type Progress =
  | { phase: 'loading'; model: string; since: number }
  | { phase: 'reading'; tokens: number; since: number }
  | { phase: 'writing'; pieces: number; since: number }
  | { phase: 'calling'; tool: string; chars: number; since: number };

/** Folds one event of the main agent into its progress; `now` in ms. */
export function reduceProgress(p: Progress | null, ev: AgentEvent, now: number): Progress | null {
  switch (ev.type) {
    case 'model_loading':
      return { phase: 'loading', model: ev.model, since: now };
    case 'model_loaded':
      return null;
    case 'context_usage':
      return { phase: 'reading', tokens: ev.tokens, since: now };
    case 'text_delta':
    case 'thinking_delta':
      // Each delta is about one token on Ollama and llama.cpp.
      return p?.phase === 'writing' ? { ...p, pieces: p.pieces + 1 } : { phase: 'writing', pieces: 1, since: now };
    case 'tool_call_writing':
      return p?.phase === 'calling' && p.tool === ev.tool && ev.chars >= p.chars ? { ...p, chars: ev.chars } : { phase: 'calling', tool: ev.tool, chars: ev.chars, since: now };
    case 'usage':
    case 'tool_started':
    case 'approval_requested':
    case 'stream_end':
    case 'stream_stopped':
    case 'error':
      return null;
    default:
      return p;
  }
}

/** `ms` as "12 s" or "3 min 05 s". */
export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** The progress in words, at `now`. */
export function describeProgress(p: Progress, now: number): string {
  const took = clock(now - p.since);
  switch (p.phase) {
    case 'loading':
      return `Loading ${p.model} into memory · ${took}`;
    case 'reading':
      return `Reading the prompt (~${p.tokens.toLocaleString('en-US')} tokens) · ${took}`;
    case 'writing': {
      const secs = (now - p.since) / 1000;
      const rate = secs >= 2 ? ` · ${(p.pieces / secs).toFixed(1)} tokens/s` : '';
      return `Writing · ~${p.pieces.toLocaleString('en-US')} tokens · ${took}${rate}`;
    }
    case 'calling':
      return `Writing a call to ${p.tool} · ${p.chars.toLocaleString('en-US')} characters · ${took}`;
  }
}
