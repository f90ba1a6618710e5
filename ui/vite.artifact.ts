// The artifact frames (docs/security.md, "Artifacts"): three small pages,
// artifact/render.html (mermaid draws a diagram), artifact/preview.html
// (an HTML answer shown with no scripts) and artifact/mcp-app.html (the
// sandbox an MCP server's app runs in), each with one script. The app
// shows them only in <iframe sandbox="allow-scripts">, whose opaque origin
// loads a module script only with CORS, which the desktop's custom scheme
// does not answer (WebKitGTK: "Origin null is not allowed by
// Access-Control-Allow-Origin"). So each script is built here as one
// classic IIFE with everything inlined (mermaid's diagrams too), not as
// Vite's module entry, and the pages are written here. Both the app build
// and the mock build emit them; the app's own bundle does not grow.
import path from 'node:path';
import { build, type Plugin, type Rollup } from 'vite';

const PAGES = ['render', 'preview', 'mcp-app'] as const;

const TITLES: Record<(typeof PAGES)[number], string> = { render: 'Hearth diagram renderer', preview: 'Hearth HTML preview', 'mcp-app': 'Hearth MCP app' };

/** A frame's page: one classic script, no module, no inline script. */
function page(name: (typeof PAGES)[number]): string {
  // An MCP app draws its own background from the theme Hearth gives it;
  // an HTML preview is a page written for a white one.
  const background = name === 'mcp-app' ? 'transparent' : '#fff';
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <title>${TITLES[name]}</title>
    <style>html, body { margin: 0; padding: 0; background: transparent; } iframe { display: block; width: 100%; height: 100vh; border: 0; background: ${background}; }</style>
  </head>
  <body>
    <script src="/artifact/${name}.js"></script>
  </body>
</html>
`;
}

/** Builds one frame script as a single IIFE (no chunks, no import()). */
async function bundle(root: string, name: string): Promise<string> {
  const result = await build({
    configFile: false,
    root,
    logLevel: 'warn',
    clearScreen: false,
    build: {
      write: false,
      target: 'safari15',
      sourcemap: false,
      minify: true,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 8192,
      lib: { entry: path.join(root, 'src/artifact', `${name}.ts`), formats: ['iife'], name: `hearthArtifact_${name.replace(/\W/g, '_')}`, fileName: () => `${name}.js` },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((o): o is Rollup.OutputChunk => o.type === 'chunk');
  if (chunks.length !== 1) throw new Error(`artifact/${name}.js: expected one chunk, got ${chunks.length}`);
  return chunks[0]!.code;
}

/** Emits artifact/{render,preview,mcp-app}.{html,js} into the build's output. */
export function artifactFrames(root: string): Plugin {
  return {
    name: 'hearth-artifact-frames',
    apply: 'build',
    async generateBundle() {
      for (const name of PAGES) {
        this.emitFile({ type: 'asset', fileName: `artifact/${name}.html`, source: page(name) });
        this.emitFile({ type: 'asset', fileName: `artifact/${name}.js`, source: await bundle(root, name) });
      }
    },
  };
}
