// Attachments in the page: a file's bytes as base64 for `attach_file`, and
// whether the session's model takes pictures (so the composer can say so
// before anything is sent; the core refuses too).
import type { AttachmentView } from '../ipc';

/** A model as the server lists it: enough to know what it can do. */
type Listed = { name: string; capabilities: string[] };

/** A file's bytes, base64 (in pieces: a spread of megabytes overflows the stack). */
export async function toBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/**
 * Whether `model` can see pictures: false only when the server lists the
 * model with capabilities that leave vision out (an older server, or
 * another host, does not say: null).
 */
export function seesImages(model: string, models: Listed[] | undefined): boolean | null {
  const m = (models ?? []).find((x) => x.name === model || x.name === `${model}:latest`);
  if (!m || m.capabilities.length === 0) return null;
  return m.capabilities.includes('vision');
}

/** What the composer says when `model` cannot take the pictures attached, or null. */
export function pictureRefusal(model: string, files: AttachmentView[], models: Listed[] | undefined): string | null {
  const n = files.filter((f) => f.kind === 'image').length;
  if (n === 0 || seesImages(model, models) !== false) return null;
  const what = n === 1 ? 'a picture' : `${n} pictures`;
  return `${model} cannot see images, so ${what} cannot be sent to it. Choose a model marked “vision” in the model picker, or remove the picture.`;
}

/** "cut: the model got 16,000 of 428,890 characters", for a text file cut to the window. */
export function cutNote(a: AttachmentView): string | null {
  if (a.kind !== 'text' || a.given === null || a.chars === null) return null;
  if (a.given === 0) return 'not given to the model: the message had no room left for it';
  return `cut to fit: the model got ${a.given.toLocaleString('en')} of ${a.chars.toLocaleString('en')} characters`;
}
