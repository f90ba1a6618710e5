// The shell's updater (Settings › About), played by the mock. A check
// answers `check` (up to date by default; `?update=available` or
// `?update=unavailable` start otherwise, for a look in `npm run dev`), or
// fails with `checkError`. As the shell, a check keeps what it offers, and
// an install of that version takes it (a second needs a new check); none
// starts while an answer is being written. The download comes in `chunks`
// pieces of `total` bytes (null: a size the server did not say), one every
// `stepMs`, then installing and restarting; `installError` ends it after
// the download instead. `hold` keeps a check ('checking') or the install
// at that phase (after the first piece of the download) until it is
// cleared, so a test reads the page with nothing to race.
import type { UpdateCheck, UpdateProgress } from '../bindings';
import { err } from './pickScript';

/** An offer whose notes carry markup, which the page must show as text. */
const OFFER: UpdateCheck = {
  state: 'available',
  current: '0.1.0',
  version: '0.2.0',
  notes: 'Faster knowledge search.\nProjects keep their own folders.\n<img src=x onerror=alert(1)>',
  date: '2026-03-14T09:30:00Z',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class MockUpdates {
  check: UpdateCheck = { state: 'up_to_date', current: '0.1.0' };
  checkError: string | null = null;
  installError: string | null = null;
  total: number | null = 10_000_000;
  chunks = 4;
  stepMs = 40;
  hold: 'checking' | 'downloading' | 'installing' | null = null;
  /** The version the last check offered, until an install takes it. */
  #offered: string | null = null;

  constructor(start: string | null, private readonly answering: () => boolean) {
    if (start === 'available') this.check = OFFER;
    if (start === 'unavailable') this.check = { state: 'unavailable', why: 'This build of Hearth has no update key, so it does not update itself: update it the way you installed it.' };
  }

  async checkNow(): Promise<UpdateCheck> {
    // A moment, as a request takes: the page says it is checking.
    await sleep(this.stepMs);
    await this.#held('checking');
    if (this.checkError) throw err('backend_failed', this.checkError);
    this.#offered = this.check.state === 'available' ? this.check.version : null;
    return this.check;
  }

  async install(version: string, send: (p: UpdateProgress) => void): Promise<null> {
    if (this.answering()) throw err('invalid_input', 'An answer is being written: stop it or let it finish, then install the update (installing restarts Hearth).', 'none');
    if (this.#offered !== version) throw err('invalid_input', `Version ${version} is not the update last found: check for updates again.`, 'none');
    this.#offered = null;
    const size = this.total ?? 10_000_000;
    for (let i = 1; i <= this.chunks; i++) {
      await sleep(this.stepMs);
      send({ phase: 'downloading', received: Math.round((size * i) / this.chunks), total: this.total });
      await this.#held('downloading');
    }
    if (this.installError) throw err('backend_failed', this.installError);
    send({ phase: 'installing' });
    await this.#held('installing');
    await sleep(this.stepMs);
    send({ phase: 'restarting' });
    return null;
  }

  async #held(phase: 'checking' | 'downloading' | 'installing'): Promise<void> {
    while (this.hold === phase) await sleep(20);
  }
}
