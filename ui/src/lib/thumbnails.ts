// Pictures' `data:` URLs, asked of the shell once per content address and
// kept for the page's life (a session reopened shows them at once).
const cache = new Map<string, Promise<string>>();

export function thumbnail(sha256: string, read: (sha256: string) => Promise<string>): Promise<string> {
  let p = cache.get(sha256);
  if (!p) {
    p = read(sha256);
    // A failed read is tried again next time.
    p.catch(() => cache.delete(sha256));
    cache.set(sha256, p);
  }
  return p;
}
