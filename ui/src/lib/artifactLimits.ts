// What the app and its diagram frame say to each other, and how large a
// diagram or a picture may be before it is not drawn. Shared by the app
// (lib/artifacts.ts, which checks before asking) and the frame
// (artifact/render.ts, which checks again before mermaid runs). In
// WebKitGTK the frame runs on the page's own thread, so a diagram mermaid
// would lay out for seconds would freeze the app: these bounds keep every
// drawing short, and past them the answer says "too large to draw".

/** The app asks the frame to draw a diagram. */
export interface RenderRequest {
  type: 'render';
  id: number;
  source: string;
  /** The app's dark theme: mermaid's dark theme. */
  dark: boolean;
}

/** The frame's answers: ready to draw, a drawing, or why none. */
export type RenderReply =
  | { type: 'ready' }
  | { type: 'rendered'; id: number; svg: string; width: number; height: number; diagramType: string }
  | { type: 'failed'; id: number; reason: 'error' | 'too-large'; message: string };

export const MERMAID_LIMITS = {
  /** Characters of source (mermaid's `maxTextSize`). */
  chars: 20_000,
  /** Lines and `;`-separated statements. */
  statements: 400,
  /** Edges (mermaid's `maxEdges`). */
  edges: 200,
  /**
   * Nodes, edges, actors, messages… as mermaid's parser counts them. A
   * flowchart of 200 parts took 0.9 s, a class diagram of 200 parts 2 s,
   * in Chromium on two cores beside a build.
   */
  parts: 250,
  /** The same for a mind map, whose layout costs more a node: 390 nodes took 5 s. */
  mindmapParts: 150,
  /** Blocks inside blocks (`subgraph`…`end`, `{`…`}`, `box`…`end`). */
  nesting: 16,
  /** Characters of the SVG mermaid writes. */
  svgChars: 4_000_000,
};

export const SVG_LIMITS = {
  /** Characters of an SVG the model wrote. */
  chars: 1_000_000,
  /** Elements in it. */
  elements: 20_000,
  /** Elements inside elements. */
  nesting: 200,
};

const OPENS_BLOCK = /^(?:(?:subgraph|box|loop|alt|opt|par|critical|break|rect)(?:\s|$)|.*\{$)/;
const CLOSES_BLOCK = /^(?:end|\})\s*$/;

/** A diagram's statements (lines and `;`-separated parts, `A & B` as two) and its deepest nesting of blocks. */
export function mermaidShape(source: string): { statements: number; deepest: number } {
  let statements = 0;
  let depth = 0;
  let deepest = 0;
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('%%')) continue;
    statements += line.split(';').filter((s) => s.trim() !== '').length;
    if (CLOSES_BLOCK.test(line)) depth = Math.max(0, depth - 1);
    else if (OPENS_BLOCK.test(line)) deepest = Math.max(deepest, ++depth);
    // `A & B & C`: each node a statement of its own.
    statements += (line.match(/\s&\s/g) ?? []).length;
  }
  return { statements, deepest };
}

/**
 * Why a diagram's source is too large or too deep to draw, or null. A cheap
 * pass over the text before mermaid parses anything.
 */
export function mermaidTooLarge(source: string): string | null {
  if (source.length > MERMAID_LIMITS.chars) {
    return `it is ${source.length.toLocaleString('en')} characters long; the most drawn is ${MERMAID_LIMITS.chars.toLocaleString('en')}`;
  }
  const { statements, deepest } = mermaidShape(source);
  if (statements > MERMAID_LIMITS.statements) {
    return `it has ${statements.toLocaleString('en')} statements; the most drawn is ${MERMAID_LIMITS.statements}`;
  }
  if (deepest > MERMAID_LIMITS.nesting) {
    return `its blocks are nested ${deepest} deep; the most drawn is ${MERMAID_LIMITS.nesting}`;
  }
  return null;
}

/**
 * Why an SVG the model wrote is too large or too deep to show, or null.
 * Counted on the text (tags opened and closed), never parsed in the app.
 */
export function svgTooLarge(source: string): string | null {
  if (source.length > SVG_LIMITS.chars) {
    return `it is ${source.length.toLocaleString('en')} characters long; the most shown is ${SVG_LIMITS.chars.toLocaleString('en')}`;
  }
  let elements = 0;
  let depth = 0;
  let deepest = 0;
  for (const m of source.matchAll(/<(\/?)([A-Za-z][\w:.-]*)[^>]*?(\/?)>/g)) {
    if (m[1]) {
      depth = Math.max(0, depth - 1);
    } else {
      elements++;
      if (!m[3]) deepest = Math.max(deepest, ++depth);
    }
  }
  if (elements > SVG_LIMITS.elements) return `it has ${elements.toLocaleString('en')} elements; the most shown is ${SVG_LIMITS.elements.toLocaleString('en')}`;
  if (deepest > SVG_LIMITS.nesting) return `its elements are nested ${deepest} deep; the most shown is ${SVG_LIMITS.nesting}`;
  return null;
}
