// Artifacts in answers (docs/security.md, "Artifacts"): a ```mermaid block
// drawn as a diagram, an ```svg block (or an ```xml one whose root is
// <svg>) shown as a picture, an ```html block previewed on request.
//
// Nothing of them runs in the app's page. Mermaid runs in a hidden
// <iframe sandbox="allow-scripts"> (artifact/render.html): an opaque
// origin, so it cannot touch this page, and its own CSP, with no network.
// It is asked by postMessage, and only answers that come from that frame's
// window are read. The SVG it answers, and an SVG the model wrote, are
// shown as an <img> of a data: URL: an SVG as an image runs no script,
// loads nothing and follows no link. An HTML preview is a second frame
// (artifact/preview.html) that puts the page in a frame with no scripts.
import { MERMAID_LIMITS, mermaidTooLarge, svgTooLarge, type RenderReply, type RenderRequest } from './artifactLimits';

export type ArtifactKind = 'mermaid' | 'svg' | 'html';

/**
 * An SVG document's start: an XML declaration, comments, a doctype, then
 * the <svg> root.
 */
const SVG_ROOT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>\s*)?(?:<!--[\s\S]*?-->\s*)*<svg[\s>/]/i;

/** Whether a code block's text is an SVG document. */
export function isSvgDocument(text: string): boolean {
  return SVG_ROOT.test(text.slice(0, 4096));
}

/** The artifact a fenced code block is, from its language and text; null for plain code. */
export function artifactKind(lang: string, text: string): ArtifactKind | null {
  const name = lang.toLowerCase();
  if (name === 'mermaid' || name === 'mmd') return 'mermaid';
  if ((name === 'svg' || name === 'xml') && isSvgDocument(text)) return 'svg';
  if (name === 'html') return 'html';
  return null;
}

/**
 * Where the frames' pages are (an MCP app's sandbox, lib/mcpApps.ts, is
 * one of them). In the desktop app: Hearth's own scheme
 * (src-tauri/artifacts.rs serves the built pages with the frames' CSP);
 * in the mock build, beside the app (tests/ui/harness.mjs serves them with
 * the same CSP).
 */
export function framePage(name: 'render' | 'preview' | 'mcp-app'): string {
  const internals = (window as { __TAURI_INTERNALS__?: { convertFileSrc?: (path: string, protocol: string) => string } }).__TAURI_INTERNALS__;
  const base = typeof internals?.convertFileSrc === 'function' ? internals.convertFileSrc('', 'hearth-artifact') : new URL('/', location.href).href;
  return `${base}artifact/${name}.html`;
}

/** An SVG as an <img> source. */
export function svgDataUrl(svg: string): string {
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** A drawing ready to show, or why there is none. */
export type Drawing =
  | { status: 'ready'; svg: string; width: number; height: number; label: string }
  | { status: 'error' | 'too-large'; message: string };

/**
 * An SVG the model wrote, ready for an <img>: with the SVG namespace (an
 * image needs it; models often leave it out, as HTML lets them) and a size
 * from its viewBox when it gives none. Read as text only: the app never
 * parses it into a document.
 */
export function modelSvg(source: string): Drawing {
  const large = svgTooLarge(source);
  if (large) return { status: 'too-large', message: large };
  const start = /<svg\b[^>]*>/i.exec(source);
  if (!start) return { status: 'error', message: 'it has no <svg> element' };
  let tag = start[0];
  const attr = (name: string) => new RegExp(`\\s${name}\\s*=\\s*(["'])(.*?)\\1`, 'i').exec(tag)?.[2];
  if (!attr('xmlns')) tag = tag.replace(/^<svg/i, '<svg xmlns="http://www.w3.org/2000/svg"');
  if (/\bxlink:/.test(source) && !attr('xmlns:xlink')) tag = tag.replace(/^<svg/i, '<svg xmlns:xlink="http://www.w3.org/1999/xlink"');
  const box = (attr('viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
  const px = (v: string | undefined) => (v && /^\s*[\d.]+\s*(?:px)?\s*$/.test(v) ? Number.parseFloat(v) : NaN);
  let width = px(attr('width'));
  let height = px(attr('height'));
  const bw = box[2] ?? NaN;
  const bh = box[3] ?? NaN;
  if (!(width > 0 && height > 0) && bw > 0 && bh > 0) {
    width = width > 0 ? width : height > 0 ? (height * bw) / bh : bw;
    height = height > 0 ? height : (width * bh) / bw;
    tag = tag.replace(/\s(?:width|height)\s*=\s*(["']).*?\1/gi, '').replace(/^<svg/i, `<svg width="${Math.ceil(width)}" height="${Math.ceil(height)}"`);
  }
  if (!(width > 0 && height > 0)) {
    width = 300;
    height = 150;
  }
  const svg = source.slice(0, start.index) + tag + source.slice(start.index + start[0].length);
  return { status: 'ready', svg, width: Math.ceil(width), height: Math.ceil(height), label: 'SVG picture' };
}

/** How long the frame may take to start, and to draw one diagram. */
const START_MS = 20_000;
const DRAW_MS = 15_000;

/** Drawn diagrams by theme and source, so a re-render (a settled block, a theme switched back) is instant. */
const drawn = new Map<string, Drawing>();
const MAX_DRAWN = 64;

function remember(key: string, d: Drawing): Drawing {
  drawn.delete(key);
  drawn.set(key, d);
  while (drawn.size > MAX_DRAWN) drawn.delete(drawn.keys().next().value!);
  return d;
}

/** Names mermaid gives its diagram kinds, as the picture's description says them. */
function described(diagramType: string): string {
  const t = diagramType.replace(/-v\d+$/, '').replace(/Diagram$/i, '');
  const names: Record<string, string> = {
    flowchart: 'Flowchart', graph: 'Flowchart', sequence: 'Sequence diagram', class: 'Class diagram', state: 'State diagram',
    er: 'Entity relationship diagram', gantt: 'Gantt chart', pie: 'Pie chart', gitGraph: 'Git graph', mindmap: 'Mind map',
    timeline: 'Timeline', journey: 'User journey', quadrantChart: 'Quadrant chart', xychart: 'XY chart', sankey: 'Sankey diagram',
    c4: 'C4 diagram', kanban: 'Kanban board', packet: 'Packet diagram', requirement: 'Requirement diagram', architecture: 'Architecture diagram', block: 'Block diagram',
  };
  return `${names[t] ?? 'Diagram'} (Mermaid)`;
}

/**
 * The one hidden diagram frame, started on first use and asked one
 * diagram at a time. A frame that does not answer in time is removed and
 * a new one started for the next diagram.
 */
class Renderer {
  #frame: HTMLIFrameElement | null = null;
  #ready: Promise<void> | null = null;
  #waiting = new Map<number, (r: RenderReply) => void>();
  #onReady: (() => void) | null = null;
  #next = 1;
  #queue: Promise<unknown> = Promise.resolve();
  /** Diagrams asked for and not drawn yet: a block re-mounted while it draws waits for the same drawing. */
  #pending = new Map<string, Promise<Drawing>>();

  constructor() {
    window.addEventListener('message', (e: MessageEvent) => {
      // Only what the renderer frame itself says: any other window (another
      // frame, an opened one) is not listened to.
      if (!this.#frame || e.source !== this.#frame.contentWindow) return;
      const reply = e.data as RenderReply | null;
      if (!reply || typeof reply !== 'object') return;
      if (reply.type === 'ready') {
        this.#onReady?.();
        return;
      }
      if ((reply.type === 'rendered' || reply.type === 'failed') && typeof reply.id === 'number') {
        this.#waiting.get(reply.id)?.(reply);
        this.#waiting.delete(reply.id);
      }
    });
  }

  #start(): Promise<void> {
    if (this.#ready) return this.#ready;
    const frame = document.createElement('iframe');
    // Scripts, and nothing else: no same origin (so no reach into this
    // page), no top navigation, no popups, no forms, no downloads.
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('aria-hidden', 'true');
    frame.setAttribute('tabindex', '-1');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.title = 'Diagram renderer';
    frame.className = 'artifact-renderer';
    frame.dataset.testid = 'artifact-renderer';
    frame.src = framePage('render');
    this.#frame = frame;
    this.#ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the diagram renderer did not start')), START_MS);
      this.#onReady = () => {
        clearTimeout(timer);
        this.#onReady = null;
        resolve();
      };
    });
    document.body.append(frame);
    return this.#ready;
  }

  #stop(): void {
    this.#frame?.remove();
    this.#frame = null;
    this.#ready = null;
    this.#onReady = null;
    for (const done of this.#waiting.values()) done({ type: 'failed', id: 0, reason: 'error', message: 'the diagram renderer stopped' });
    this.#waiting.clear();
  }

  /** A diagram drawn in the frame (or remembered), or why not. */
  draw(source: string, dark: boolean): Promise<Drawing> {
    const key = `${dark ? 'dark' : 'light'}\n${source}`;
    const known = drawn.get(key);
    if (known) return Promise.resolve(known);
    const large = mermaidTooLarge(source);
    if (large) return Promise.resolve(remember(key, { status: 'too-large', message: large }));
    const pending = this.#pending.get(key);
    if (pending) return pending;
    const run = this.#queue
      .then(() => this.#ask(source, dark))
      .then((d) => remember(key, d))
      .finally(() => this.#pending.delete(key));
    this.#pending.set(key, run);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The remembered drawing, when there is one (shown at once, no flash). */
  known(source: string, dark: boolean): Drawing | undefined {
    return drawn.get(`${dark ? 'dark' : 'light'}\n${source}`);
  }

  async #ask(source: string, dark: boolean): Promise<Drawing> {
    try {
      await this.#start();
    } catch (e) {
      this.#stop();
      return { status: 'error', message: e instanceof Error ? e.message : String(e) };
    }
    const id = this.#next++;
    const reply = await new Promise<RenderReply>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        // A frame that is still drawing is given up, and a fresh one
        // draws the next diagram.
        this.#stop();
        resolve({ type: 'failed', id, reason: 'too-large', message: `it took longer than ${DRAW_MS / 1000} s to draw` });
      }, DRAW_MS);
      this.#waiting.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      const request: RenderRequest = { type: 'render', id, source, dark };
      // Its origin is opaque: '*' is the only target that reaches it; the
      // source is the answer's own text, nothing secret.
      this.#frame?.contentWindow?.postMessage(request, '*');
    });
    if (reply.type === 'rendered') {
      // Checked, not trusted: only an SVG string and two sizes are kept.
      if (typeof reply.svg !== 'string' || !/^<svg[\s>]/.test(reply.svg) || reply.svg.length > MERMAID_LIMITS.svgChars) {
        return { status: 'error', message: 'the renderer answered something that is not a diagram' };
      }
      const width = Math.min(Math.max(Number(reply.width) || 0, 1), 20_000);
      const height = Math.min(Math.max(Number(reply.height) || 0, 1), 20_000);
      return { status: 'ready', svg: reply.svg, width, height, label: described(String(reply.diagramType ?? '')) };
    }
    if (reply.type === 'failed') {
      return { status: reply.reason === 'too-large' ? 'too-large' : 'error', message: String(reply.message ?? '').slice(0, 2000) };
    }
    return { status: 'error', message: 'the renderer answered something unexpected' };
  }
}

let renderer: Renderer | null = null;

/** The app's diagram renderer (its frame starts with the first diagram). */
export function diagrams(): Renderer {
  renderer ??= new Renderer();
  return renderer;
}

/** The largest PNG made of a drawing, in pixels a side. */
const MAX_PNG_SIDE = 8192;

/**
 * A drawing as a PNG (base64), drawn through a canvas at twice its size
 * (less for a large one) on `background`.
 */
export async function pngOf(svg: string, width: number, height: number, background: string | null): Promise<string> {
  const img = new Image();
  img.src = svgDataUrl(svg);
  await img.decode();
  const scale = Math.max(0.05, Math.min(2, MAX_PNG_SIDE / width, MAX_PNG_SIDE / height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no canvas to draw on');
  if (background) {
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, canvas.width, canvas.height);
  }
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('the picture could not be made into a PNG');
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
