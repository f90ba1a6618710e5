// Knowledge folders as the mock shell keeps them (docs/knowledge.md). A
// sync goes one step further at every `knowledge_status` (the panel asks
// every half second while one runs), so a test sees each step: reading
// (`seen` growing), embedding when a model is chosen (16 passages a step),
// then done with the shell's summary in `last`. `hold = true` keeps a sync
// where it is until set back (a test looks at the page while it runs).
// Every folder holds the same twelve files: ten read (the fake documents
// below, which `knowledge_search` finds by their words), two left out. A
// folder whose path says "missing" is not there at its first sync (a drive
// not mounted). Search finds a document whose text or headings hold a word
// of the query; once the passages are embedded by the model chosen, by
// meaning too. Every folder that is there is watched for changes, as the
// app's watcher does, up to `watchLimit` folders (a test sets it: the
// system's limit of watches); one not there is named with why.
// `passage()` reads a passage back by its lines, as `knowledge_passage`
// does; a file a test lists in `changed` has none at the old lines.
import type { KnowledgeFolderView, KnowledgeHitView, KnowledgeSyncView, KnowledgeView, PassageView } from '../bindings';
import { err } from './pickScript';

/** A folder's files: read ones and the left-out ones with why. */
const FILES = 12;
const LEFT_OUT: [string, string][] = [
  ['photos/cat.jpg', 'not a text file'],
  ['video/talk.mp4', 'larger than 16 MB'],
];
/** Passages of a folder's files. */
const CHUNKS = 38;
/** Files a reading step gets through. */
const READ_STEP = 5;
/** Passages an embedding step gets through (a batch). */
const EMBED_STEP = 16;
export const MISSING_DETAIL = 'the folder is not there (moved, deleted, or a drive not mounted); its passages are kept until it is removed';

type Doc = { rel: string; heading: string | null; start: number; end: number; text: string; meaning: string[] };

/** The passages search finds, in the first folder read (`meaning`: words that find it only by meaning). */
export const DOCS: Doc[] = [
  { rel: 'guide/install.md', heading: 'Guide › Install › Debian', start: 12, end: 30, text: 'Install the package with apt, then run hearth --version to check it works.', meaning: ['setup', 'linux'] },
  { rel: 'passport.md', heading: 'Papers › Passport › Renewal', start: 3, end: 9, text: 'Renew the passport at the town hall: bring the old one and two photos.\nIt takes three weeks.', meaning: ['travel', 'document'] },
  { rel: 'recipes/bread.txt', heading: null, start: 1, end: 1, text: 'Bread: 500 g flour, 350 g water, 10 g salt, a little yeast.', meaning: ['baking'] },
  { rel: 'saved/attic-page.html', heading: 'A downloaded page', start: 4, end: 6, text: 'The attic key is under the mat. <img src=x onerror="window.__knowledgeXss = 1"><script>window.__knowledgeXss = 2</script> <b>bold?</b>', meaning: [] },
];

type Folder = KnowledgeFolderView & { read: boolean };

export class MockKnowledge {
  folders: Folder[] = [];
  model: string | null = null;
  /** The model the passages' vectors were made with. */
  vectorsModel: string | null = null;
  sync: KnowledgeSyncView = { running: false, phase: null, seen: 0, read: 0, embedded: 0, to_embed: 0, last: null, error: null, watched: 0, unwatched: [] };
  /** Set by a test: how many folders the system lets the app watch (null: no limit). */
  watchLimit: number | null = null;
  /** Set by a test: files changed since their passages were cited (none is at the old lines). */
  changed: string[] = [];
  /** Set by a test: the sync stays where it is. */
  hold = false;
  /** Set by a test: the embedding pass fails with the server's words (a server that is down). */
  embedError: string | null = null;
  #stopAsked = false;
  #report = { indexed: 0, unchanged: 0, skipped: 0, removed: 0 };

  view(): KnowledgeView {
    return {
      folders: this.folders.map(({ read: _read, ...f }) => ({ ...f })),
      model: this.model,
      vectors_model: this.vectorsModel !== this.model ? this.vectorsModel : null,
      sync: { ...this.sync, ...this.#watch() },
    };
  }

  /** What the watcher holds: every folder that is there, up to the limit; the others with why (as watch.rs says it). */
  #watch(): { watched: number; unwatched: string[] } {
    let watched = 0;
    const unwatched: string[] = [];
    for (const f of this.folders) {
      if (f.status === 'missing') continue;
      if (f.path.includes('missing')) unwatched.push(`${f.path}: the folder is not there`);
      else if (this.watchLimit !== null && watched >= this.watchLimit) unwatched.push(`${f.path}: the system's limit of watched folders is reached (raise fs.inotify.max_user_watches); its changes are read at the next sync`);
      else watched++;
    }
    return { watched, unwatched };
  }

  /** `knowledge_passage`: the passage at exactly those lines of a file in a folder read, or null. */
  passage(path: string, start: number, end: number): PassageView | null {
    const f = this.folders.find((x) => x.read && x.status !== 'missing' && path.startsWith(`${x.path}/`));
    if (!f || this.changed.includes(path)) return null;
    const d = DOCS.find((x) => `${f.path}/${x.rel}` === path && x.start === start && x.end === end);
    return d ? { path, heading: d.heading, start_line: d.start, end_line: d.end, text: d.text } : null;
  }

  /** A folder read before the page started (seeded chats cite its passages). */
  seedRead(path: string, project: string | null = null): void {
    this.folders = [...this.folders, { path, files: FILES, indexed: FILES - LEFT_OUT.length, skipped: LEFT_OUT.length, chunks: CHUNKS, embedded: 0, status: 'ready', detail: null, project, read: true }].sort((a, b) => a.path.localeCompare(b.path));
  }

  /** `knowledge_status`: a running sync goes one step further first. */
  status(): KnowledgeView {
    if (this.sync.running && !this.hold) this.step();
    return this.view();
  }

  /** `project`: an id, whose chats only search it (null: every chat's). */
  add(path: string, project: string | null = null): KnowledgeView {
    const p = path.trim().replace(/\/+$/, '');
    if (!p.startsWith('/')) throw err('invalid_input', `${p}: No such file or directory (os error 2)`, 'none');
    const other = this.folders.find((f) => f.path !== p && (p.startsWith(`${f.path}/`) || f.path.startsWith(`${p}/`)));
    if (other) throw err('invalid_input', `${p}: overlaps the knowledge folder ${other.path}; remove that one first`, 'none');
    if (!this.folders.some((f) => f.path === p)) {
      this.folders = [...this.folders, { path: p, files: 0, indexed: 0, skipped: 0, chunks: 0, embedded: 0, status: 'new', detail: null, project, read: false }].sort((a, b) => a.path.localeCompare(b.path));
    }
    this.start();
    return this.view();
  }

  remove(path: string): KnowledgeView {
    if (this.sync.running) throw err('invalid_input', 'a sync is going on: stop it first, then remove the folder', 'none');
    const f = this.find(path);
    this.folders = this.folders.filter((x) => x !== f);
    return this.view();
  }

  skipped(path: string): [string, string][] {
    const f = this.find(path);
    return f.read && f.status !== 'missing' ? LEFT_OUT.map(([file, why]) => [file, why]) : [];
  }

  setModel(model: string): KnowledgeView {
    const m = model.trim();
    if (!m) {
      this.model = null;
      return this.view();
    }
    this.model = m;
    this.start();
    return this.view();
  }

  /** `knowledge_sync`. */
  syncNow(): KnowledgeView {
    this.start();
    return this.view();
  }

  stop(): null {
    if (this.sync.running) this.#stopAsked = true;
    return null;
  }

  search(query: string): KnowledgeHitView[] {
    const words: string[] = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const home = this.folders.find((f) => f.read && f.status !== 'missing');
    if (!home || words.length === 0) return [];
    const embedded = this.model !== null && this.vectorsModel === this.model && home.embedded > 0;
    const byWords = DOCS.filter((d) => words.some((w) => `${d.text} ${d.heading ?? ''}`.toLowerCase().includes(w)));
    const byMeaning = embedded ? DOCS.filter((d) => byWords.includes(d) || d.meaning.some((m) => words.includes(m))) : [];
    const found = [...byWords, ...byMeaning.filter((d) => !byWords.includes(d))];
    return found.map((d) => ({
      path: `${home.path}/${d.rel}`,
      heading: d.heading,
      start_line: d.start,
      end_line: d.end,
      text: d.text,
      word_rank: byWords.includes(d) ? byWords.indexOf(d) + 1 : null,
      meaning_rank: byMeaning.includes(d) ? byMeaning.indexOf(d) + 1 : null,
    }));
  }

  find(path: string): Folder {
    const f = this.folders.find((x) => x.path === path);
    if (!f) throw err('invalid_input', `${path} is not a knowledge folder (\`hearth knowledge list\` shows them)`, 'none');
    return f;
  }

  /** Starts a sync (nothing when one runs). */
  start(): void {
    if (this.sync.running) return;
    this.#stopAsked = false;
    this.#report = { indexed: 0, unchanged: 0, skipped: 0, removed: 0 };
    this.sync = { ...this.sync, running: true, phase: 'reading', seen: 0, read: 0, embedded: 0, to_embed: 0, last: null, error: null };
  }

  /** Files the walk sees: every folder that is there. */
  #total(): number {
    return this.folders.filter((f) => !f.path.includes('missing')).length * FILES;
  }

  step(): void {
    const s = this.sync;
    if (this.#stopAsked) {
      const r = this.#report;
      this.#end(`Stopped: ${r.indexed} files read, ${r.unchanged} unchanged, ${r.skipped} left out, ${r.removed} gone; the next sync goes on from there.`);
      return;
    }
    if (s.phase === 'reading') {
      const total = this.#total();
      if (s.seen < total) {
        const fresh = this.folders.filter((f) => !f.read && !f.path.includes('missing')).length * FILES;
        s.seen = Math.min(total, s.seen + READ_STEP);
        s.read = Math.min(fresh, s.seen);
        for (const f of this.folders) if (!f.path.includes('missing')) f.status = 'syncing';
        return;
      }
      this.#finishReading();
      if (!this.model) {
        const r = this.#report;
        this.#end(`${r.indexed} files read, ${r.unchanged} unchanged, ${r.skipped} left out, ${r.removed} gone. No embedding model is chosen: search is by words.`);
        return;
      }
      if (this.vectorsModel !== this.model) for (const f of this.folders) f.embedded = 0;
      s.phase = 'embedding';
      s.embedded = 0;
      s.to_embed = this.folders.reduce((n, f) => n + f.chunks - f.embedded, 0);
      return;
    }
    if (this.embedError) {
      this.sync = { ...s, running: false, phase: null, error: `the embedding model \`${this.model}\` did not answer: ${this.embedError}. Search by words still works.` };
      return;
    }
    if (s.embedded < s.to_embed) {
      s.embedded = Math.min(s.to_embed, s.embedded + EMBED_STEP);
      return;
    }
    const replaced = this.vectorsModel && this.vectorsModel !== this.model ? ` (the vectors of ${this.vectorsModel} were replaced)` : '';
    for (const f of this.folders) f.embedded = f.chunks;
    this.vectorsModel = this.model;
    const r = this.#report;
    this.#end(`${r.indexed} files read, ${r.unchanged} unchanged, ${r.skipped} left out, ${r.removed} gone; ${s.to_embed} passages embedded${replaced}`);
  }

  #finishReading(): void {
    const r = this.#report;
    for (const f of this.folders) {
      if (f.path.includes('missing')) {
        f.status = 'missing';
        f.detail = MISSING_DETAIL;
        continue;
      }
      if (f.read) {
        r.unchanged += FILES - LEFT_OUT.length;
      } else {
        r.indexed += FILES - LEFT_OUT.length;
        r.skipped += LEFT_OUT.length;
        Object.assign(f, { files: FILES, indexed: FILES - LEFT_OUT.length, skipped: LEFT_OUT.length, chunks: CHUNKS, embedded: 0, read: true });
      }
      f.status = 'ready';
      f.detail = null;
    }
  }

  #end(last: string): void {
    for (const f of this.folders) if (f.status === 'syncing') f.status = f.read ? 'ready' : 'new';
    this.sync = { ...this.sync, running: false, phase: null, last, error: null };
    this.#stopAsked = false;
  }
}
