// The sources of the stored answers on screen (docs/knowledge.md, "Sources
// under an answer"): asked of the core once per answer that may have any
// (lib/sources.ts says which), and kept, so an answer scrolled away and
// back, or a session shown again, asks nothing more. An answer's sources
// never change: they are read from its own stored words and the passages
// its run was given. A live run's answer is asked about once it is stored
// (its row appears when the run ends). The passage a source names is read
// when clicked, as the index holds it now, into the panel on the right.
import * as ipc from '../ipc';
import type { AnswerSourcesView, PassageView, SourceView } from '../ipc';
import { mayHaveSources } from '../lib/sources';
import { app } from './app.svelte';
import { chat } from './chat.svelte';

/** Answers whose sources are kept (a long day's worth; the oldest go first). */
const KEPT = 500;

export type SourcesEntry = { state: 'loading' } | { state: 'done'; view: AnswerSourcesView } | { state: 'failed'; message: string };

/** The passage panel: the source clicked and its passage (undefined: being read; null: gone). */
export interface OpenPassage {
  source: SourceView;
  passage: PassageView | null | undefined;
  error: string | null;
}

class SourcesState {
  #kept = $state.raw(new Map<string, SourcesEntry>());
  /** The passage shown in the panel, if any. */
  open = $state.raw<OpenPassage | null>(null);
  /** Which answers of the open session's branch may have sources. */
  may = $derived(mayHaveSources(chat.view?.messages ?? []));

  /** What is known of answer `messageId`'s sources (undefined: not asked yet). */
  get(sessionId: string, messageId: number): SourcesEntry | undefined {
    return this.#kept.get(`${sessionId}:${messageId}`);
  }

  /** Asks the core for answer `messageId`'s sources, unless asked before. */
  async want(sessionId: string, messageId: number): Promise<void> {
    const key = `${sessionId}:${messageId}`;
    if (this.#kept.has(key)) return;
    this.#set(key, { state: 'loading' });
    let entry: SourcesEntry;
    try {
      entry = { state: 'done', view: await ipc.answerSources(sessionId, messageId) };
    } catch (e) {
      entry = { state: 'failed', message: ipc.errorInfo(e).message };
    }
    this.#set(key, entry);
  }

  #set(key: string, entry: SourcesEntry): void {
    const next = new Map(this.#kept);
    next.delete(key);
    next.set(key, entry);
    for (const old of next.keys()) {
      if (next.size <= KEPT) break;
      next.delete(old);
    }
    this.#kept = next;
  }

  /** Opens the panel on `source`'s passage, read from the index now. */
  async show(source: SourceView): Promise<void> {
    const opened: OpenPassage = { source, passage: undefined, error: null };
    // One panel at a time on the right.
    app.panel = null;
    this.open = opened;
    let passage: PassageView | null | undefined;
    let error: string | null = null;
    try {
      passage = await ipc.knowledgePassage(source.path, source.start_line, source.end_line);
    } catch (e) {
      error = ipc.errorInfo(e).message;
    }
    // Another source clicked meanwhile, or the panel closed: this one is not shown.
    if (this.open === opened) this.open = { source, passage, error };
  }

  close(): void {
    this.open = null;
  }
}

export const sources = new SourcesState();
