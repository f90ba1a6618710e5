// The diagram renderer's page (artifact/render.html; docs/security.md,
// "Artifacts"). It runs only in the app's hidden
// <iframe sandbox="allow-scripts">: an opaque origin that cannot reach the
// app's page, its storage or Tauri's IPC (the invoke key is not here), and
// a CSP of its own (src-tauri/artifacts.rs) with no network at all. The
// app sends a diagram's source by postMessage; this page answers with the
// SVG mermaid drew, or why it drew none. Nothing it answers is ever put in
// the app's DOM as markup: the app shows the SVG as an <img>.
import mermaid, { type MermaidConfig } from 'mermaid';
import { MERMAID_LIMITS, mermaidShape, mermaidTooLarge, type RenderReply, type RenderRequest } from '../lib/artifactLimits';

/** Labels in plain SVG text: drawn the same in an <img>, in a canvas (PNG), and saved. */
const FONT = 'system-ui, -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", Arial, sans-serif';

/**
 * What a diagram's own `%%{init}%%` or front matter may not change:
 * mermaid's defaults plus the labels' kind, the sanitizer's settings,
 * extra CSS and the ids.
 */
const SECURE = [
  'secure', 'securityLevel', 'startOnLoad', 'maxTextSize', 'suppressErrorRendering', 'maxEdges',
  'htmlLabels', 'dompurifyConfig', 'themeCSS', 'fontFamily', 'altFontFamily', 'deterministicIds', 'deterministicIDSeed', 'layout',
];

function config(dark: boolean): MermaidConfig {
  return {
    startOnLoad: false,
    securityLevel: 'strict',
    maxTextSize: MERMAID_LIMITS.chars,
    maxEdges: MERMAID_LIMITS.edges,
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    deterministicIds: true,
    suppressErrorRendering: true,
    logLevel: 'fatal',
    fontFamily: FONT,
    theme: dark ? 'dark' : 'default',
    secure: SECURE,
  };
}

/** The diagram's parts that mermaid's parser counted, where it can say. */
function counted(db: unknown): number {
  const d = db as Record<string, unknown>;
  const size = (name: string): number => {
    const f = d[name];
    if (typeof f !== 'function') return 0;
    try {
      const v: unknown = f.call(db);
      if (v instanceof Map || v instanceof Set) return v.size;
      if (Array.isArray(v)) return v.length;
      if (v && typeof v === 'object') return Object.keys(v).length;
    } catch {
      // Not this diagram's kind of part.
    }
    return 0;
  };
  return ['getVertices', 'getEdges', 'getSubGraphs', 'getActors', 'getMessages', 'getClasses', 'getRelations', 'getStates', 'getEntities', 'getRelationships', 'getTasks', 'getSections', 'getCommits']
    .map(size)
    .reduce((a, b) => a + b, 0);
}

/**
 * Mermaid's SVG as an SVG document on its own: well-formed XML (mermaid
 * serializes it as HTML, where `<br>` or `&nbsp;` in a label would leave an
 * image blank), with a size of its own (its viewBox's), so an <img> and a
 * canvas know how big it is.
 */
function sized(svg: string): { svg: string; width: number; height: number } {
  const doc = new DOMParser().parseFromString(`<!doctype html><html><body>${svg}</body></html>`, 'text/html');
  const root = doc.body.firstElementChild;
  if (!(root instanceof SVGSVGElement)) throw new Error('mermaid wrote no SVG');
  const box = (root.getAttribute('viewBox') ?? '').trim().split(/[\s,]+/).map(Number);
  let width = box[2] ?? NaN;
  let height = box[3] ?? NaN;
  if (!(width > 0 && height > 0)) {
    width = Number.parseFloat(root.getAttribute('width') ?? '') || 400;
    height = Number.parseFloat(root.getAttribute('height') ?? '') || 300;
  }
  width = Math.ceil(width);
  height = Math.ceil(height);
  root.setAttribute('width', String(width));
  root.setAttribute('height', String(height));
  // Its `max-width` style and 100% width are for a page, not an image.
  root.removeAttribute('style');
  return { svg: new XMLSerializer().serializeToString(root), width, height };
}

let next = 0;

async function draw(req: RenderRequest): Promise<RenderReply> {
  const large = mermaidTooLarge(req.source);
  if (large) return { type: 'failed', id: req.id, reason: 'too-large', message: large };
  mermaid.initialize(config(req.dark));
  let diagram;
  try {
    diagram = await mermaid.mermaidAPI.getDiagramFromText(req.source);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const reason = /maximum text size|edge limit|too many|exceeded/i.test(message) ? 'too-large' : 'error';
    return { type: 'failed', id: req.id, reason, message };
  }
  // What the parser counted, or (a kind it cannot count) one part a statement.
  const parts = Math.max(counted(diagram.db), mermaidShape(req.source).statements);
  const most = diagram.type === 'mindmap' ? MERMAID_LIMITS.mindmapParts : MERMAID_LIMITS.parts;
  if (parts > most) {
    return { type: 'failed', id: req.id, reason: 'too-large', message: `it has ${parts} nodes, edges and other parts; the most drawn is ${most}` };
  }
  try {
    const { svg, diagramType } = await mermaid.render(`hearth-diagram-${++next}`, req.source);
    if (svg.length > MERMAID_LIMITS.svgChars) {
      return { type: 'failed', id: req.id, reason: 'too-large', message: 'the drawing is larger than the app shows' };
    }
    return { type: 'rendered', id: req.id, diagramType, ...sized(svg) };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return { type: 'failed', id: req.id, reason: /edge limit|too many|exceeded/i.test(message) ? 'too-large' : 'error', message };
  } finally {
    // What mermaid left behind when it failed mid-way.
    for (const el of document.querySelectorAll('body > :not(script)')) el.remove();
  }
}

// One diagram at a time: mermaid's configuration is global.
let queue: Promise<unknown> = Promise.resolve();

window.addEventListener('message', (e: MessageEvent) => {
  // Only the app (this frame's parent) asks.
  if (e.source !== window.parent) return;
  const req = e.data as Partial<RenderRequest> | null;
  if (!req || req.type !== 'render' || typeof req.id !== 'number' || typeof req.source !== 'string') return;
  const r = req as RenderRequest;
  queue = queue.then(async () => {
    let reply: RenderReply;
    try {
      reply = await draw(r);
    } catch (err) {
      reply = { type: 'failed', id: r.id, reason: 'error', message: err instanceof Error ? err.message : String(err) };
    }
    window.parent.postMessage(reply, '*');
  });
});

window.parent.postMessage({ type: 'ready' } satisfies RenderReply, '*');
