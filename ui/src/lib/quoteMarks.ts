// Marks, inside a rendered answer, a quotation the citation check found
// not to be in its source (docs/knowledge.md): the first place its words
// stand in one text node is wrapped in <mark class="unverified">. Only
// DOM nodes are made and moved (never HTML parsed: the words are the
// model's). A quotation split across nodes (emphasis inside it, a link)
// is not marked; the list under the answer still says it.

/** What the mark says when hovered. */
export const UNVERIFIED_TITLE = 'Not found in the cited source';

/** Where a quotation is never looked for: code, formulas, controls, marks already made. */
const SKIP = 'pre, code, math, .katex, button, mark.unverified, .artifact';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Wraps the first occurrence of `quote` (its words, any spacing between
 * them) in a text node under `root`, inside an element of it (the text
 * of a block, not a bare node of the rendered HTML's own). True when it
 * is marked, now or before.
 */
export function markQuote(root: Element, quote: string, title = UNVERIFIED_TITLE): boolean {
  const words = quote.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return false;
  for (const m of root.querySelectorAll<HTMLElement>('mark.unverified')) if (m.dataset.quote === quote) return true;
  const pattern = new RegExp(words.map(escapeRegExp).join('\\s+'), 'u');
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node as Text;
    const parent = text.parentElement;
    if (!parent || parent === root || parent.closest(SKIP)) continue;
    const found = pattern.exec(text.data);
    if (!found) continue;
    const middle = text.splitText(found.index);
    middle.splitText(found[0].length);
    const mark = root.ownerDocument.createElement('mark');
    mark.className = 'unverified';
    mark.title = title;
    mark.dataset.quote = quote;
    mark.dataset.testid = 'unverified-quote';
    middle.replaceWith(mark);
    mark.append(middle);
    return true;
  }
  return false;
}
