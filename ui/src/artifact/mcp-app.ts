// The MCP app frame's page (artifact/mcp-app.html; MCP Apps, SEP-1865):
// the spec's "sandbox proxy". The app page shows it in an
// <iframe sandbox="allow-scripts"> (an opaque origin, no IPC) and sends
// the server's HTML once; the HTML goes into an inner
// <iframe sandbox="allow-scripts"> by `srcdoc`. The inner frame inherits
// this page's CSP (src-tauri/artifacts.rs): inline scripts run, but nothing
// loads from the network, no frame opens, no form is sent. Its scripts
// have no origin of their own and cannot reach this page, the app page or
// the top window; the only way out is a message to this page, and only
// JSON-RPC messages of the app's own protocol are passed on, both ways.

/** Notifications between the host and this page; never passed to or from the app. */
const SANDBOX_PREFIX = 'ui/notifications/sandbox-';
/** A message larger than this (as JSON) is dropped: an app cannot make either side hold an unbounded one. */
const MAX_MESSAGE_CHARS = 4 * 1024 * 1024;

let inner: HTMLIFrameElement | null = null;

/** The message's size as JSON, or Infinity when it cannot be written as JSON (a cycle, a BigInt). */
function jsonSize(data: unknown): number {
  try {
    return JSON.stringify(data)?.length ?? Infinity;
  } catch {
    return Infinity;
  }
}

/**
 * A JSON-RPC 2.0 message of the app protocol: a request or notification
 * (a string method, not one of this page's own), or a response (an id with
 * a result or an error). Anything else is not passed on: the host's
 * transport would only complain about it.
 */
function isAppMessage(data: unknown): data is { jsonrpc: '2.0'; method?: string } {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return false;
  const m = data as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return false;
  if ('method' in m) {
    if (typeof m.method !== 'string' || m.method.startsWith(SANDBOX_PREFIX)) return false;
    if ('params' in m && m.params !== undefined && (typeof m.params !== 'object' || m.params === null)) return false;
    return !('id' in m) || typeof m.id === 'string' || typeof m.id === 'number';
  }
  if (typeof m.id !== 'string' && typeof m.id !== 'number') return false;
  return ('result' in m && typeof m.result === 'object' && m.result !== null) || ('error' in m && typeof m.error === 'object' && m.error !== null);
}

/** Shows the app's HTML (the first time only: an app is never replaced). */
function show(html: string): void {
  if (inner) return;
  const frame = document.createElement('iframe');
  // Scripts only, whatever the server or the host asked for (`sandbox`,
  // `permissions`): no same origin, no popups, no forms, no top
  // navigation, and no `allow` (no camera, microphone, location, clipboard).
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.title = 'MCP app';
  frame.srcdoc = html;
  inner = frame;
  document.body.replaceChildren(frame);
}

window.addEventListener('message', (e: MessageEvent) => {
  const data: unknown = e.data;
  if (e.source === window.parent) {
    const m = data as { jsonrpc?: unknown; method?: unknown; params?: { html?: unknown } } | null;
    if (m?.jsonrpc === '2.0' && m.method === `${SANDBOX_PREFIX}resource-ready`) {
      if (typeof m.params?.html === 'string') show(m.params.html);
      return;
    }
    if (!inner?.contentWindow || !isAppMessage(data) || jsonSize(data) > MAX_MESSAGE_CHARS) return;
    // The app's origin is opaque: '*' is the only target that reaches it.
    inner.contentWindow.postMessage(data, '*');
    return;
  }
  // Only the app's own window speaks for it: a message from anywhere else
  // (a window it opened, a frame of its own) is not passed on.
  if (!inner || e.source !== inner.contentWindow) return;
  if (!isAppMessage(data) || jsonSize(data) > MAX_MESSAGE_CHARS) return;
  window.parent.postMessage(data, '*');
});

window.parent.postMessage({ jsonrpc: '2.0', method: `${SANDBOX_PREFIX}proxy-ready`, params: {} }, '*');
