// Model output is untrusted: Markdown is rendered by marked (raw HTML in
// it is escaped to text), then the HTML is sanitized by DOMPurify with a tight allow-list (no images, frames,
// forms, styles, SVG or MathML; links only http/https/mailto), and only
// then inserted. Code is highlighted with highlight.js core and a few
// explicitly registered languages, which keeps the bundle small.
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
import { Marked, type Tokens } from 'marked';

const languages = { bash, c, cpp, css, diff, go, javascript, json, markdown: markdownLang, python, rust, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['rs'], { languageName: 'rust' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const name = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      const known = name && hljs.getLanguage(name) ? name : null;
      const body = known ? hljs.highlight(text, { language: known, ignoreIllegals: true }).value : escapeHtml(text);
      const label = known ?? (name || 'text');
      return `<pre class="code"><div class="code-lang">${escapeHtml(label)}</div><code class="hljs">${body}</code></pre>`;
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

const FORBID_TAGS = [
  'img', 'image', 'iframe', 'frame', 'frameset', 'object', 'embed', 'style', 'link', 'meta', 'base',
  'form', 'input', 'button', 'textarea', 'select', 'option', 'video', 'audio', 'source', 'track',
  'picture', 'svg', 'math', 'foreignObject', 'canvas', 'template', 'noscript', 'dialog',
];

const purifyConfig = {
  USE_PROFILES: { html: true },
  FORBID_TAGS,
  // `style` attributes would also break the CSP (style-src 'self').
  FORBID_ATTR: ['style', 'srcset', 'src', 'action', 'formaction', 'target', 'ping', 'background', 'poster'],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  ALLOW_DATA_ATTR: false,
};

/** Markdown → sanitized HTML, safe to insert. */
export function renderMarkdown(src: string): string {
  const raw = marked.parse(src, { async: false });
  return DOMPurify.sanitize(raw, purifyConfig);
}

/** Only these schemes may leave the app, through the shell's opener. */
export function isOpenableUrl(href: string): boolean {
  return /^(?:https?:|mailto:)/i.test(href);
}
