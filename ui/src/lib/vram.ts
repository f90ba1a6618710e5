// Whether a model that is not loaded would fit on the server's GPU. Ollama
// does not report its free VRAM; what it does report (`/api/ps`) is where
// each loaded model went. A loaded model that spilled part of itself onto
// the CPU means the server had filled its GPUs, so what the loaded models
// hold in VRAM together is about what it has. Until one spills, nothing is
// known not to fit, and no hint is given.
import type { RunningView } from '../ipc';
import { bytes } from './format';

/**
 * The VRAM the server is known to have, or `null` while no loaded model has
 * spilled, or when none is on a GPU at all (a server without one: every
 * model runs on the CPU, and a hint on each would say nothing).
 */
export function knownVram(running: RunningView[]): number | null {
  if (!running.some((r) => r.size_vram < r.size)) return null;
  const sum = running.reduce((n, r) => n + r.size_vram, 0);
  return sum > 0 ? sum : null;
}

/**
 * A hint for a model of `size` bytes on disk: its weights alone are larger
 * than the known VRAM (loading also needs room for its context), so part of
 * it would run on the CPU. `null` when it may fit or nothing is known.
 */
export function fitHint(size: number, vram: number | null): string | null {
  if (vram === null || size <= vram) return null;
  return `does not fit in this server's VRAM (about ${bytes(vram)}): part of it would run on the CPU`;
}
