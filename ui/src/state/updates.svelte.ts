// Settings › About's "Check for updates" and "Install and restart". Kept
// here, not in the panel, so an install going on when the panel closes
// still shows its progress (and cannot be started twice) when it opens
// again. On success the shell restarts the app: this page goes with it.
import * as ipc from '../ipc';
import type { UpdateCheck, UpdateProgress } from '../ipc';

class UpdatesState {
  /** What the last check answered; null before one, during one, or after one failed. */
  check = $state.raw<UpdateCheck | null>(null);
  /** A check or an install going on; the buttons wait for it. */
  busy = $state<'checking' | 'installing' | null>(null);
  /** How the install goes, as the shell last said; null until it says. */
  progress = $state.raw<UpdateProgress | null>(null);
  /** Why the last check or install failed, as the shell says it to the person. */
  error = $state<string | null>(null);
  /** Whether the shell still holds the offer shown: it hands it to the first install of it, which may fail. */
  #held = false;
  /** Counts installs, so a late message of a failed one is not taken for the next's. */
  #attempt = 0;

  async checkNow(): Promise<void> {
    if (this.busy) return;
    this.busy = 'checking';
    this.error = null;
    // The last answer goes while the new one is awaited: the same answer
    // again is then said again to a screen reader, and nothing stale shows.
    this.check = null;
    try {
      this.check = await ipc.checkUpdate();
      this.#held = this.check.state === 'available';
    } catch (e) {
      this.error = ipc.errorInfo(e).message;
    } finally {
      this.busy = null;
    }
  }

  /** Installs the version shown; the shell restarts into it. */
  async install(): Promise<void> {
    const offer = this.check;
    if (this.busy || offer?.state !== 'available') return;
    // After a failed install the shell has let its offer go: found again
    // first, and installed only if it is still the version shown (another
    // one is shown, with its notes, for the person to read first).
    if (!this.#held) {
      await this.checkNow();
      if (this.check?.state !== 'available' || this.check.version !== offer.version) return;
    }
    const attempt = ++this.#attempt;
    this.busy = 'installing';
    this.error = null;
    this.progress = null;
    try {
      await ipc.installUpdate(offer.version, (p) => {
        if (attempt === this.#attempt && this.busy === 'installing') this.progress = p;
      });
      // Nothing is left to press: the app is restarting.
      this.progress = { phase: 'restarting' };
    } catch (e) {
      this.#held = false;
      this.busy = null;
      this.progress = null;
      this.error = ipc.errorInfo(e).message;
    }
  }
}

export const updates = new UpdatesState();
