// Characters that change how text looks without being seen — terminal
// controls, bidirectional overrides, zero-width characters — shown as
// escapes (`\u{202e}`) in what a person decides on: the approval's
// arguments. Mirrors crates/core/src/visible.rs, which already escapes the
// approval's reach and warning.

const DECEPTIVE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|[\u{e0000}-\u{e007f}\u{e0100}-\u{e01ef}]/gu;

/** `text` with hidden and display-changing characters made visible (newlines and tabs kept). */
export function visible(text: string): string {
  return text.replace(DECEPTIVE, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Whether `text` holds a hidden or display-changing character (newlines and tabs aside). */
export function hasHidden(text: string): boolean {
  return new RegExp(DECEPTIVE.source, 'u').test(text);
}
