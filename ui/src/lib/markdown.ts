// Model output is untrusted: Markdown is rendered by marked (raw HTML in
// it is escaped to text), then the HTML is sanitized by DOMPurify with a tight allow-list (no images, frames,
// forms, styles or SVG; MathML only as KaTeX writes it; links only
// http/https/mailto), and only then inserted. Code is highlighted with
// highlight.js core and a few explicitly registered languages, which keeps
// the bundle small. Math (`$…$`, `$$…$$`, and LaTeX's `\(…\)`, `\[…\]`,
// which models write as often) is rendered by KaTeX to MathML only: no
// stylesheet or fonts, so the strict CSP holds, and WebKit and Chromium
// draw it natively. KaTeX runs untrusted input with `trust: false` (no
// \href, \url or \includegraphics) and caps on size and macro expansion.
// A ```mermaid, ```svg (or SVG ```xml) or ```html block stays a code block
// here, in a box (`div.artifact`) that Markdown.svelte fills with its view;
// none of it is ever rendered into this page (lib/artifacts.ts).
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdownLang from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import lang_cmake from 'highlight.js/lib/languages/cmake';
import lang_csharp from 'highlight.js/lib/languages/csharp';
import lang_dart from 'highlight.js/lib/languages/dart';
import lang_dockerfile from 'highlight.js/lib/languages/dockerfile';
import lang_elixir from 'highlight.js/lib/languages/elixir';
import lang_graphql from 'highlight.js/lib/languages/graphql';
import lang_haskell from 'highlight.js/lib/languages/haskell';
import lang_ini from 'highlight.js/lib/languages/ini';
import lang_java from 'highlight.js/lib/languages/java';
import lang_julia from 'highlight.js/lib/languages/julia';
import lang_kotlin from 'highlight.js/lib/languages/kotlin';
import lang_latex from 'highlight.js/lib/languages/latex';
import lang_lua from 'highlight.js/lib/languages/lua';
import lang_makefile from 'highlight.js/lib/languages/makefile';
import lang_nginx from 'highlight.js/lib/languages/nginx';
import lang_nix from 'highlight.js/lib/languages/nix';
import lang_objectivec from 'highlight.js/lib/languages/objectivec';
import lang_perl from 'highlight.js/lib/languages/perl';
import lang_php from 'highlight.js/lib/languages/php';
import lang_powershell from 'highlight.js/lib/languages/powershell';
import lang_protobuf from 'highlight.js/lib/languages/protobuf';
import lang_r from 'highlight.js/lib/languages/r';
import lang_ruby from 'highlight.js/lib/languages/ruby';
import lang_scala from 'highlight.js/lib/languages/scala';
import lang_scss from 'highlight.js/lib/languages/scss';
import lang_swift from 'highlight.js/lib/languages/swift';
import katex, { type KatexOptions } from 'katex';
import { Marked, type TokenizerAndRendererExtension, type Tokens } from 'marked';
import markedKatex from 'marked-katex-extension';
import { artifactKind } from './artifacts';

// The languages people ask local models about most; each is a few KB.
const languages = {
  bash, c, cpp, css, diff, go, javascript, json, markdown: markdownLang, python, rust, sql, typescript, xml, yaml,
  cmake: lang_cmake,
  csharp: lang_csharp,
  dart: lang_dart,
  dockerfile: lang_dockerfile,
  elixir: lang_elixir,
  graphql: lang_graphql,
  haskell: lang_haskell,
  ini: lang_ini,
  java: lang_java,
  julia: lang_julia,
  kotlin: lang_kotlin,
  latex: lang_latex,
  lua: lang_lua,
  makefile: lang_makefile,
  nginx: lang_nginx,
  nix: lang_nix,
  objectivec: lang_objectivec,
  perl: lang_perl,
  php: lang_php,
  powershell: lang_powershell,
  protobuf: lang_protobuf,
  r: lang_r,
  ruby: lang_ruby,
  scala: lang_scala,
  scss: lang_scss,
  swift: lang_swift,
};
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['rs'], { languageName: 'rust' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['toml'], { languageName: 'ini' });
hljs.registerAliases(['cs', 'c#'], { languageName: 'csharp' });
hljs.registerAliases(['kt', 'kts'], { languageName: 'kotlin' });
hljs.registerAliases(['rb'], { languageName: 'ruby' });
hljs.registerAliases(['ps1', 'pwsh'], { languageName: 'powershell' });
hljs.registerAliases(['tex'], { languageName: 'latex' });
hljs.registerAliases(['docker'], { languageName: 'dockerfile' });
hljs.registerAliases(['proto'], { languageName: 'protobuf' });
hljs.registerAliases(['objc', 'm'], { languageName: 'objectivec' });

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/**
 * Set while a live answer's unfinished tail renders: a fence not yet
 * closed is still being written, so it stays code (a diagram half written
 * would only fail to draw).
 */
let unclosedIsCode = false;

/** Whether a fenced code block's raw text has its closing fence. */
function fenceClosed(raw: string): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
  if (!open) return true; // indented code: nothing to close
  const run = open[1]!;
  const lines = raw.replace(/\n+$/, '').split('\n');
  if (lines.length < 2) return false;
  const last = lines[lines.length - 1]!.trim();
  return last.length >= run.length && [...last].every((c) => c === run[0]);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang, raw }: Tokens.Code): string {
      const name = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      const known = name && hljs.getLanguage(name) ? name : null;
      const body = known ? hljs.highlight(text, { language: known, ignoreIllegals: true }).value : escapeHtml(text);
      const label = known ?? (name || 'text');
      const pre = `<pre class="code"><div class="code-lang">${escapeHtml(label)}</div><code class="hljs">${body}</code></pre>`;
      // A diagram, a picture or a page: Markdown.svelte mounts its view
      // (components/Artifact.svelte) in this box, from the code's text.
      const kind = artifactKind(name, text);
      if (kind && (!unclosedIsCode || fenceClosed(raw))) return `<div class="artifact artifact-${kind}">${pre}</div>`;
      return pre;
    },
    // Raw HTML in model output is shown as text, never parsed: even an
    // inert parse (DOMParser, <template>) of `onerror=`/`style=` makes the
    // browser report CSP violations, and text is what the user should see.
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    // Images would load from wherever the model points (a tracking pixel,
    // or a leak of the conversation in the URL): show a plain link instead.
    // The href is percent-encoded as marked does for links (non-ASCII and
    // spaces escaped, escapes already there kept).
    image({ href, text }: Tokens.Image): string {
      let url: string;
      try {
        url = encodeURI(href).replace(/%25/g, '%');
      } catch {
        return escapeHtml(`image: ${text || href}`); // a lone surrogate: no link
      }
      return `<a href="${escapeHtml(url)}" class="image-link">image: ${escapeHtml(text || href)}</a>`;
    },
  },
});

/** KaTeX on untrusted TeX: MathML out, errors shown as text, no links or images, bounded work. */
const KATEX: KatexOptions = { output: 'mathml', throwOnError: false, trust: false, strict: 'ignore', maxSize: 50, maxExpand: 500 };

/**
 * LaTeX's own delimiters, `\(…\)` inline and `\[…\]` display, which the
 * dollar extension does not read (and Markdown would take `\[` for an
 * escaped bracket). Inline-level, so a display formula inside a paragraph
 * is found too.
 */
const bracketMath: TokenizerAndRendererExtension = {
  name: 'bracketMath',
  level: 'inline',
  start(src: string) {
    const at = src.search(/\\[([]/);
    return at < 0 ? undefined : at;
  },
  tokenizer(src: string) {
    const m = /^\\\(((?:[^\\]|\\(?!\)))+?)\\\)|^\\\[((?:[^\\]|\\(?!\]))+?)\\\]/.exec(src);
    if (!m) return undefined;
    const display = m[2] !== undefined;
    // `\[1\]` is an escaped citation mark more often than a formula.
    if (/^\s*\d+\s*$/.test((display ? m[2] : m[1]) ?? '')) return undefined;
    return { type: 'bracketMath', raw: m[0], text: (display ? m[2] : m[1])!.trim(), display };
  },
  renderer(token) {
    return katex.renderToString(String(token.text), { ...KATEX, displayMode: Boolean(token.display) });
  },
};
marked.use(markedKatex(KATEX), { extensions: [bracketMath] });

/**
 * KaTeX's MathML without the TeX source it annotates: DOMPurify drops the
 * `semantics` and `annotation` elements but keeps their text, which would
 * print the source beside the formula.
 */
function withoutAnnotation(html: string): string {
  return html.replace(/<annotation encoding="application\/x-tex">[\s\S]*?<\/annotation>/g, '').replace(/<\/?semantics>/g, '');
}

/**
 * Without `style` attributes: KaTeX colours an error with one, and even
 * DOMPurify's inert parse of it makes the browser report a CSP violation.
 * Marked writes none itself (text quotes come out as `&quot;`), so only
 * KaTeX's are removed.
 */
function withoutStyles(html: string): string {
  return html.replace(/ style="[^"]*"/g, '');
}

const FORBID_TAGS = [
  'img', 'image', 'iframe', 'frame', 'frameset', 'object', 'embed', 'style', 'link', 'meta', 'base',
  'form', 'input', 'button', 'textarea', 'select', 'option', 'video', 'audio', 'source', 'track',
  'picture', 'svg', 'foreignObject', 'canvas', 'template', 'noscript', 'dialog',
  // MathML that embeds HTML or acts on input; KaTeX writes neither.
  'annotation-xml', 'maction',
];

const purifyConfig = {
  USE_PROFILES: { html: true, mathMl: true },
  FORBID_TAGS,
  // `style` attributes would also break the CSP (style-src 'self').
  FORBID_ATTR: ['style', 'srcset', 'src', 'action', 'formaction', 'target', 'ping', 'background', 'poster'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ALLOW_DATA_ATTR: false,
  // KaTeX's MathML layout attributes: DOMPurify keeps an attribute outside
  // its short "URI-safe" list only when its value passes the URL rule
  // above, which "block" or "normal" never do. None of these is a URL.
  ADD_URI_SAFE_ATTR: [
    'display', 'displaystyle', 'scriptlevel', 'mathvariant', 'stretchy', 'fence', 'separator', 'lspace', 'rspace', 'accent', 'accentunder',
    'movablelimits', 'minsize', 'maxsize', 'linethickness', 'width', 'height', 'depth', 'voffset', 'columnalign', 'columnspacing', 'rowspacing',
    'rowalign', 'columnlines', 'rowlines', 'frame', 'framespacing', 'symmetric', 'largeop', 'mathcolor', 'mathbackground', 'notation', 'align', 'side',
  ],
};

/**
 * The deepest nesting a text may ask of the parsers. Model output (or an
 * imported conversation) nested far deeper overflowed marked's and KaTeX's
 * stacks (20,000 `{` or `>`), and a list 600 levels deep stalled the page
 * for a minute (security review N9); real answers nest a few levels.
 */
const MAX_NESTING = 64;

/**
 * Whether `src` nests deeper than MAX_NESTING: braces (TeX groups), block
 * quotes at a line's start, or list levels (indentation of two columns a
 * level). One pass, so it is cheap on every streamed piece.
 */
export function tooDeep(src: string): boolean {
  let braces = 0;
  let lineStart = true;
  let quotes = 0;
  let indent = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      quotes = 0;
      indent = 0;
      continue;
    }
    if (c === 123 && ++braces > MAX_NESTING) return true;
    if (c === 125 && braces > 0) braces--;
    if (!lineStart) continue;
    if (c === 62) {
      if (++quotes > MAX_NESTING) return true;
    } else if (c === 32) {
      if (++indent > 2 * MAX_NESTING) return true;
    } else if (c !== 9) {
      lineStart = false;
    }
  }
  return false;
}

/**
 * Markdown → sanitized HTML, safe to insert. A text nested too deep for the
 * parsers, or one they fail on, is shown as it was written, as plain text:
 * the conversation stays readable and the page responsive. `live`: the
 * text is still being written (a streaming answer's tail, or one cut off),
 * so a code fence it leaves open is shown as code, never as an artifact.
 */
export function renderMarkdown(src: string, { live = false }: { live?: boolean } = {}): string {
  let raw: string;
  try {
    if (tooDeep(src)) throw new RangeError('nested too deep to render');
    unclosedIsCode = live;
    raw = withoutStyles(withoutAnnotation(marked.parse(src, { async: false })));
  } catch {
    raw = `<pre class="plain-text">${escapeHtml(src)}</pre>`;
  } finally {
    unclosedIsCode = false;
  }
  return DOMPurify.sanitize(raw, purifyConfig);
}

/** Only these schemes may leave the app, through the shell's opener. */
export function isOpenableUrl(href: string): boolean {
  return /^(?:https?:|mailto:)/i.test(href);
}
