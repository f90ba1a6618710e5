// The HTML preview's page (artifact/preview.html; docs/security.md,
// "Artifacts"). The app shows it in an <iframe sandbox="allow-scripts">
// (this script only: an opaque origin, no IPC, a CSP with no network) and
// sends the answer's HTML by postMessage. The HTML itself goes into an
// inner <iframe sandbox=""> by `srcdoc`: no script of it runs, it has no
// origin of its own, cannot navigate this frame or the app, submit a form
// or open a window, and it inherits this page's CSP, so it loads nothing
// from anywhere (pictures only as data: URLs).

window.addEventListener('message', (e: MessageEvent) => {
  if (e.source !== window.parent) return;
  const msg = e.data as { type?: unknown; html?: unknown } | null;
  if (!msg || msg.type !== 'show' || typeof msg.html !== 'string') return;
  const frame = document.createElement('iframe');
  frame.setAttribute('sandbox', '');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.title = 'HTML preview';
  frame.srcdoc = msg.html;
  document.body.replaceChildren(frame);
  window.parent.postMessage({ type: 'shown' }, '*');
});

window.parent.postMessage({ type: 'ready' }, '*');
