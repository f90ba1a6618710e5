// Knowledge folders as the Settings section shows them (docs/knowledge.md):
// the folders, the embedding model and the sync, read once when the
// section opens and then every half second while a sync runs, never
// otherwise; `dispose()` (the section closed) ends the polling. Every
// command answers with the whole view, which replaces the one held.
import * as ipc from '../ipc';
import type { KnowledgeHitView, KnowledgeView } from '../ipc';
import { toasts } from './toasts.svelte';

export const POLL_MS = 500;

/**
 * How many knowledge folders there are, for the composer's Knowledge
 * switch (shown while one exists): read whenever a chat is opened (a
 * project's dialog, or the CLI, may have added or removed one), and taken
 * from every view the Settings section gets (a folder added or removed
 * there).
 */
class FolderCount {
  count = $state<number | null>(null);
  /** Bumped by every count set, so a reading that was overtaken is dropped. */
  #version = 0;
  #reading = false;

  set(n: number): void {
    this.#version++;
    this.count = n;
  }

  async refresh(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    const version = this.#version;
    try {
      const v = await ipc.knowledgeStatus();
      if (version === this.#version) this.set(v.folders.length);
    } catch {
      // The index cannot be read: the switch stays as it was (Settings says why).
    } finally {
      this.#reading = false;
    }
  }
}
export const knowledgeFolders = new FolderCount();

export class KnowledgeState {
  view = $state.raw<KnowledgeView | null>(null);
  /** Why the view could not be read (the index could not be opened). */
  failure = $state<string | null>(null);
  /** Stop was asked and the sync has not ended yet. */
  stopping = $state(false);
  /** A command is under way (its buttons wait). */
  busy = $state(false);
  /** The last search: its query and what it found (null: none made yet). */
  searched = $state<string | null>(null);
  hits = $state.raw<KnowledgeHitView[]>([]);
  searching = $state(false);

  running = $derived(this.view?.sync.running ?? false);

  /** The next reading, waiting; a reading under way. */
  #timer: ReturnType<typeof setTimeout> | null = null;
  #reading = false;
  #disposed = false;
  #asked = 0;
  #shown = 0;

  /** Reads the view (polling while a sync runs). */
  async load(): Promise<void> {
    try {
      this.#apply(await this.#ask(ipc.knowledgeStatus));
      this.failure = null;
    } catch (e) {
      this.failure = ipc.errorInfo(e).message;
    }
  }

  /** The folder dialog, then the folder added (a sync starts); nothing when cancelled. */
  async addPicked(): Promise<void> {
    await this.#run(async () => {
      const path = await ipc.knowledgeChooseFolder();
      if (path === null) return;
      this.#apply(await this.#ask(() => ipc.knowledgeAddFolder(path)));
    });
  }

  async remove(path: string): Promise<void> {
    await this.#run(async () => this.#apply(await this.#ask(() => ipc.knowledgeRemoveFolder(path))));
  }

  /** Chooses the embedding model (blank: none); a model starts a sync. */
  async setModel(model: string): Promise<void> {
    await this.#run(async () => this.#apply(await this.#ask(() => ipc.knowledgeSetModel(model.trim()))));
  }

  async sync(): Promise<void> {
    await this.#run(async () => this.#apply(await this.#ask(ipc.knowledgeSync)));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    try {
      await ipc.knowledgeStopSync();
    } catch (e) {
      this.stopping = false;
      toasts.error(ipc.errorInfo(e).message);
    }
    this.#watch();
  }

  /** A folder's files left out, with why. */
  skipped(path: string): Promise<[string, string][]> {
    return ipc.knowledgeSkipped(path);
  }

  async search(query: string): Promise<void> {
    const q = query.trim();
    if (!q) return;
    this.searching = true;
    try {
      this.hits = await ipc.knowledgeSearch(q);
      this.searched = q;
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
    } finally {
      this.searching = false;
    }
  }

  /** The section closed: no more polling. */
  dispose(): void {
    this.#disposed = true;
    this.#clear();
  }

  /**
   * A command; its failure is said in a toast, and the view is read again
   * (a sync may have started or ended meanwhile: a refused remove).
   */
  async #run(f: () => Promise<void>): Promise<void> {
    this.busy = true;
    try {
      await f();
    } catch (e) {
      toasts.error(ipc.errorInfo(e).message);
      await this.load();
    } finally {
      this.busy = false;
    }
  }

  /** A command's view, numbered in the order asked. */
  async #ask(f: () => Promise<KnowledgeView>): Promise<[KnowledgeView, number]> {
    const n = ++this.#asked;
    return [await f(), n];
  }

  /**
   * Shows a view unless one asked later is shown already (answers may pass
   * each other), then polls while the view shown says a sync runs.
   */
  #apply([v, n]: [KnowledgeView, number]): void {
    if (this.#disposed) return;
    if (n >= this.#shown) {
      this.#shown = n;
      this.view = v;
      knowledgeFolders.set(v.folders.length);
    }
    if (this.running) {
      this.#watch();
    } else {
      this.stopping = false;
      this.#clear();
    }
  }

  #clear(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Reads the view again in half a second: one reading at a time. */
  #watch(): void {
    if (this.#disposed || this.#timer !== null || this.#reading) return;
    this.#timer = setTimeout(() => void this.#tick(), POLL_MS);
  }

  async #tick(): Promise<void> {
    this.#timer = null;
    this.#reading = true;
    let read: [KnowledgeView, number];
    try {
      read = await this.#ask(ipc.knowledgeStatus);
    } catch (e) {
      this.#reading = false;
      this.failure = ipc.errorInfo(e).message;
      return;
    }
    this.#reading = false;
    this.#apply(read);
  }
}
