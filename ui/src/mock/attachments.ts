// Attached files in the mock: kept by the SHA-256 of their bytes, told
// apart by their bytes as the store does (pictures by signature, text as
// UTF-8 without NUL), and given to a message as the core would: text cut
// to half of a 4,096-token window (8,192 characters), pictures refused for
// a model whose capabilities leave vision out.
import type { AttachmentView } from '../bindings';
import { err } from './pickScript';

interface Kept {
  view: AttachmentView;
  base64: string;
}

const SIGNATURES: [string, number[]][] = [
  ['image/png', [0x89, 0x50, 0x4e, 0x47]],
  ['image/jpeg', [0xff, 0xd8, 0xff]],
  ['image/gif', [0x47, 0x49, 0x46, 0x38]],
];
/** What one message may give the model, in characters (the core's long-message share). */
export const TEXT_ROOM = 8192;
const FRAME = 400;

export class MockFiles {
  files = new Map<string, Kept>();

  async add(name: string, base64: string): Promise<AttachmentView> {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const sig = SIGNATURES.find(([, s]) => s.every((b, i) => bytes[i] === b));
    let text: string | null = null;
    if (!sig) {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        text = null;
      }
      if (text === null || text.includes('\0')) throw err('invalid_input', `cannot attach ${name}: it is neither a picture (PNG, JPEG, WebP, GIF) nor UTF-8 text`, 'none');
    }
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
    const sha256 = [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
    const view: AttachmentView = { sha256, name, kind: sig ? 'image' : 'text', mime: sig ? sig[0] : 'text/plain', size: bytes.length, given: null, chars: text === null ? null : [...text].length };
    this.files.set(sha256, { view, base64 });
    return { ...view, chars: null };
  }

  /**
   * A text file the core attaches itself (a chat's knowledge passages),
   * kept at once under a name made from its text (not SHA-256, which the
   * browser gives only asynchronously; unique enough for the mock).
   */
  put(name: string, text: string): AttachmentView {
    const bytes = new TextEncoder().encode(text);
    let h = 0x811c9dc5;
    for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    const sha256 = `${h.toString(16).padStart(8, '0')}${bytes.length.toString(16).padStart(8, '0')}`.repeat(4);
    const view: AttachmentView = { sha256, name, kind: 'text', mime: 'text/markdown', size: bytes.length, given: null, chars: [...text].length };
    this.files.set(sha256, { view, base64: btoa(String.fromCharCode(...bytes)) });
    return { ...view, chars: null };
  }

  /** A kept text file's text (null: not kept, or a picture). */
  text(sha256: string): string | null {
    const f = this.files.get(sha256);
    if (!f || f.view.kind !== 'text') return null;
    return new TextDecoder().decode(Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0)));
  }

  dataUrl(sha256: string): string {
    const f = this.files.get(sha256);
    if (!f) throw err('invalid_input', `no attached file \`${sha256}\` (attach it again)`, 'none');
    return `data:${f.view.mime};base64,${f.base64}`;
  }

  /** The files `refs` names as a message keeps them; a refusal when the model cannot see. */
  give(refs: { sha256: string; name: string }[], typed: string, model: string, capabilities: string[] | null): AttachmentView[] {
    const views = refs.map((r) => {
      const f = this.files.get(r.sha256);
      if (!f) throw err('invalid_input', `no attached file \`${r.sha256}\` (attach it again)`, 'none');
      return { ...f.view, name: r.name };
    });
    const pictures = views.filter((v) => v.kind === 'image').length;
    if (pictures > 0 && capabilities && capabilities.length > 0 && !capabilities.includes('vision')) {
      throw err('invalid_input', `${model} cannot see images, so ${pictures === 1 ? 'a picture' : `${pictures} pictures`} cannot be sent to it.`, 'none');
    }
    let room = Math.max(0, TEXT_ROOM - [...typed].length);
    return views.map((v) => {
      if (v.kind !== 'text' || v.chars === null) return v;
      room = Math.max(0, room - FRAME);
      const given = Math.min(v.chars, room);
      room -= given;
      return { ...v, given: given < v.chars ? given : null };
    });
  }
}
