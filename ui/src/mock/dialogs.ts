// The system's Save and Open dialogs, as the mock's export and import
// commands meet them: each dialog shown takes the next queued answer
// (null: the person cancelled; `text`: the picked file's contents). Tests
// queue answers in `answers` and read what each dialog showed in `asked`,
// and what exports wrote where in `saved`.

export type Picked = { path: string; text?: string } | null;

export class Dialogs {
  answers: Picked[] = [];
  asked: { kind: 'save' | 'open' | 'folder'; name?: string }[] = [];
  saved = new Map<string, string>();

  /** A Save dialog suggesting `name`; the path written, or null when cancelled. */
  save(name: string, text: string): string | null {
    this.asked.push({ kind: 'save', name });
    // With no answer queued the person accepts the suggested name in Downloads.
    const picked = this.answers.length > 0 ? this.answers.shift() : { path: `/home/user/Downloads/${name}` };
    if (!picked) return null;
    this.saved.set(picked.path, text);
    return picked.path;
  }

  /** A folder dialog opening in `start`; the picked folder, or null when cancelled. */
  folder(start: string | null): string | null {
    this.asked.push({ kind: 'folder', ...(start ? { name: start } : {}) });
    return this.answers.shift()?.path ?? null;
  }

  /** An Open dialog; the picked file, or null when cancelled. */
  open(): Picked {
    this.asked.push({ kind: 'open' });
    return this.answers.shift() ?? null;
  }
}
