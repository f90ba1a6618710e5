// MCP apps (MCP Apps, SEP-1865, spec 2026-01-26): an MCP tool may name a
// `ui://` HTML resource; when the model called it, the server's app shows
// in the call's card, under its result (components/McpAppView.svelte).
// This is Hearth's side of the app's protocol, through the official host
// library (`AppBridge` over `PostMessageTransport`), loaded only when an
// app is shown so the app's main chunk does not carry it.
//
// The app runs in two frames: artifact/mcp-app.html (the "sandbox proxy",
// artifact/mcp-app.ts) in an <iframe sandbox="allow-scripts"> of this page,
// and the app's HTML in a frame inside it, with that page's CSP: no
// network, no frames, no forms. Hearth grants none of the origins an app's
// resource asks for and no permission (camera, clipboard…). What the app
// may ask of Hearth, and what Hearth does:
// - call a tool of its server (`tools/call`): the shell asks the person
//   first, and refuses tools not meant for apps; a refusal comes back to
//   the app as an error result;
// - read a resource of its server (`resources/read`);
// - open a link (`ui/open-link`): the shell asks the person first;
// - put a message in the composer (`ui/message`): text only, never sent;
//   the person reads it and sends it if they want;
// - log (`notifications/message`): into the server's log;
// - tell its size: the frame follows, within bounds.
// It may not give the model context (`ui/update-model-context`): what
// reaches the model is what the person sends.
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import type { AppBridge, McpUiHostCapabilities, McpUiHostContext, McpUiStyles, McpUiStyleVariableKey } from '@modelcontextprotocol/ext-apps/app-bridge';
import { hasHidden } from './visible';
import { errorInfo, mcpAppCallTool, mcpAppLog, mcpAppOpenLink, mcpAppReadResource, type JsonValue, type McpAppView } from '../ipc';

export type { McpAppView };

type BridgeModule = typeof import('@modelcontextprotocol/ext-apps/app-bridge');

/** The frame's height before the app tells its own, and the bounds of what it may ask. */
export const APP_HEIGHT = { start: 200, min: 80, max: 1200 } as const;
/** What one log line of an app may carry into the server's log. */
const LOG_CHARS = 2000;
/**
 * The longest message an app may put in the composer (and its lines), and
 * the longest the composer grows to by it: short enough to be read whole
 * before it is sent, with nothing pushed out of sight below it.
 */
const MESSAGE_CHARS = 4_000;
const MESSAGE_LINES = 40;
/** Log lines one app may add to its server's log (the log keeps 400 lines; an app must not push Hearth's own out). */
const LOG_LINES = 100;
/** A tool name shown in Hearth's own words; anything else is "a tool" (the name is the app's text). */
const TOOL_NAME = /^[\w.-]{1,64}$/;

/** Apps the person chose to run, by run and call: run again, without asking, when their card is shown again. */
const started = new Set<string>();
const MAX_STARTED = 256;

/** Whether the person chose to run the app of this call. */
export function appStarted(runId: string, callId: string): boolean {
  return started.has(`${runId}\n${callId}`);
}

/** Remembers that the person chose to run the app of this call. */
export function startApp(runId: string, callId: string): void {
  started.add(`${runId}\n${callId}`);
  while (started.size > MAX_STARTED) started.delete(started.values().next().value!);
}

/** A tool's name as Hearth may show it. */
export function shownToolName(name: string): string {
  return TOOL_NAME.test(name) ? name : 'a tool';
}
const DRAFT_CHARS = 100_000;
/** How long a closing app has to answer `ui/resource-teardown`. */
const TEARDOWN_MS = 1000;

/**
 * What Hearth offers an app: tools and resources of its own server, links,
 * logging, text messages into the composer; a sandbox with no permission
 * and no origin granted. Not `updateModelContext`: Hearth does not give an
 * app's context to the model.
 */
const HOST_CAPABILITIES: McpUiHostCapabilities = {
  openLinks: {},
  serverTools: {},
  serverResources: {},
  logging: {},
  message: { text: {} },
  sandbox: { permissions: {}, csp: {} },
};

let loading: Promise<BridgeModule> | null = null;

/** The host library, loaded on first use (a failed load is tried again next time). */
export function loadBridge(): Promise<BridgeModule> {
  if (!loading) {
    // zod (which the library checks every message with) probes
    // `new Function` as each object schema is made, unless told not to;
    // the app's CSP (no 'unsafe-eval') reports that probe as a violation
    // even though zod catches it. The setting must be in place before the
    // library's schemas are made, as the bundler may put them in the same
    // chunk as zod's `config`: so it is set where zod 4 reads its settings
    // from, a global, before anything of zod loads.
    const zod = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
    (zod.__zod_globalConfig ??= {}).jitless = true;
    loading = import('@modelcontextprotocol/ext-apps/app-bridge');
    loading.catch(() => (loading = null));
  }
  return loading;
}

/** What the component does for the app. */
export interface McpAppCallbacks {
  /** The frame's new height (clamped to APP_HEIGHT). */
  resize(height: number): void;
  /** The tools the app waits on now, oldest first (empty: none). */
  calling(names: readonly string[]): void;
  /** Puts `text` in the composer (never sends it); false when it cannot take it. */
  compose(text: string): boolean;
}

export interface McpAppOptions {
  runId: string;
  callId: string;
  view: McpAppView;
  dark: boolean;
  /** Hearth's version, as the host's name to the app. */
  version: string;
  callbacks: McpAppCallbacks;
}

export interface McpAppConnection {
  /** Tells the app the theme changed. */
  setTheme(dark: boolean): void;
  /** Asks the app to tear down (briefly), then closes the connection. */
  close(): Promise<void>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A tool result that says `text` went wrong (what the app gets for a refused or failed call). */
function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** Hearth's colours and font, as the spec's style variables (what the app may style itself with). */
function styleVariables(): McpUiStyles {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string) => css.getPropertyValue(name).trim() || undefined;
  const variables: Partial<Record<McpUiStyleVariableKey, string | undefined>> = {
    '--color-background-primary': v('--panel'),
    '--color-background-secondary': v('--bg'),
    '--color-background-tertiary': v('--code-bg'),
    '--color-text-primary': v('--fg'),
    '--color-text-secondary': v('--muted'),
    '--color-text-danger': v('--danger'),
    '--color-border-primary': v('--border'),
    '--color-ring-primary': v('--accent'),
    '--font-sans': getComputedStyle(document.body).fontFamily || undefined,
  };
  return variables as McpUiStyles;
}

function hostContext(view: McpAppView, dark: boolean): McpUiHostContext {
  return {
    theme: dark ? 'dark' : 'light',
    styles: { variables: styleVariables() },
    platform: 'desktop',
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    locale: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    containerDimensions: { maxHeight: APP_HEIGHT.max },
    toolInfo: { tool: { name: view.tool, inputSchema: { type: 'object' } } },
  };
}

/**
 * Connects Hearth to the app in `frame` (the sandbox page, artifact/mcp-app.html),
 * which must exist and not have loaded yet: the sandbox's first message
 * ("ready") is to find the bridge listening.
 */
export function connectMcpApp(mod: BridgeModule, frame: HTMLIFrameElement, o: McpAppOptions): McpAppConnection {
  const { runId, callId, view, callbacks } = o;
  const target = frame.contentWindow;
  if (!target) throw new Error('the app frame is not in the page');
  let dark = o.dark;
  const bridge: AppBridge = new mod.AppBridge(null, { name: 'Hearth', version: o.version }, HOST_CAPABILITIES, { hostContext: hostContext(view, dark) });
  let shown = false;
  let initialized = false;
  let closed = false;
  const waiting: string[] = [];
  let linking = false;

  bridge.onsandboxready = () => {
    // Once: the sandbox shows the first page it gets and no other.
    if (shown || closed) return;
    shown = true;
    // No origin and no permission granted, whatever the resource asked.
    void bridge.sendSandboxResourceReady({ html: view.html, csp: {}, permissions: {} }).catch(() => {});
  };
  // The theme the app was told at its start; one switched before the app
  // says it is initialized is sent after (nothing goes to it before).
  const startDark = dark;
  bridge.oninitialized = () => {
    if (initialized || closed) return;
    initialized = true;
    if (dark !== startDark) bridge.setHostContext(hostContext(view, dark));
    const args = isObject(view.arguments) ? view.arguments : {};
    void (async () => {
      await bridge.sendToolInput({ arguments: args });
      if (isObject(view.result)) await bridge.sendToolResult(view.result as unknown as CallToolResult);
      else await bridge.sendToolCancelled({ reason: view.note ?? 'the result was not kept' });
    })().catch(() => {});
  };
  bridge.onsizechange = ({ height }) => {
    if (typeof height !== 'number' || !Number.isFinite(height)) return;
    callbacks.resize(Math.min(APP_HEIGHT.max, Math.max(APP_HEIGHT.min, Math.ceil(height))));
  };
  bridge.oncalltool = async (params) => {
    const name = params.name;
    waiting.push(name);
    callbacks.calling([...waiting]);
    try {
      const result = await mcpAppCallTool(runId, callId, name, (params.arguments ?? {}) as JsonValue);
      return isObject(result) ? (result as unknown as CallToolResult) : errorResult('the server answered something that is not a tool result');
    } catch (e) {
      // The person's "no" and a tool not meant for apps come back here too.
      return errorResult(errorInfo(e).message);
    } finally {
      waiting.splice(waiting.indexOf(name), 1);
      callbacks.calling([...waiting]);
    }
  };
  bridge.onreadresource = async (params) => (await mcpAppReadResource(runId, callId, params.uri)) as unknown as ReadResourceResult;
  bridge.onopenlink = async ({ url }) => {
    // One question at a time: an app that asks in a loop does not stack
    // the person's dialogs.
    if (linking) return { isError: true };
    linking = true;
    try {
      await mcpAppOpenLink(runId, callId, url);
      return {};
    } catch {
      // The person's "no", or an address Hearth does not open: the app is told, it may say so.
      return { isError: true };
    } finally {
      linking = false;
    }
  };
  bridge.onmessage = async ({ content }) => {
    const texts = content.map((b) => (b.type === 'text' ? b.text : null));
    if (texts.length === 0 || texts.some((t) => t === null)) throw new Error('Hearth takes only text into the composer');
    const text = texts.join('\n\n').trim();
    if (text === '') throw new Error('the message is empty');
    if (text.length > MESSAGE_CHARS) throw new Error(`the message is longer than ${MESSAGE_CHARS.toLocaleString('en')} characters`);
    if (text.split('\n').length > MESSAGE_LINES) throw new Error(`the message has more than ${MESSAGE_LINES} lines`);
    // What the person reads must be what the model gets: no invisible or
    // direction characters (text hidden in them would be sent as theirs).
    if (hasHidden(text)) throw new Error('the message holds invisible or direction-changing characters, so Hearth does not put it in the composer');
    if (!callbacks.compose(text)) throw new Error('the composer cannot take more text now');
    return {};
  };
  bridge.onupdatemodelcontext = async () => {
    throw new Error("Hearth does not pass an app's context to the model; the app can put a message in the composer instead");
  };
  let logged = 0;
  bridge.onloggingmessage = ({ level, data }) => {
    if (++logged > LOG_LINES) return;
    const text = typeof data === 'string' ? data : (JSON.stringify(data) ?? String(data));
    void mcpAppLog(runId, callId, level, text.slice(0, LOG_CHARS)).catch(() => {});
  };
  bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });

  // Listening before the sandbox page loads: its "ready" comes once.
  void bridge.connect(new mod.PostMessageTransport(target, target)).catch(() => {});

  return {
    setTheme(next: boolean) {
      if (next === dark || closed) return;
      dark = next;
      if (!initialized) return;
      // Kept for an app that starts again; sent (what changed: the theme
      // and the colours) to one that runs.
      bridge.setHostContext(hostContext(view, dark));
    },
    async close() {
      if (closed) return;
      closed = true;
      if (initialized) {
        try {
          await bridge.teardownResource({}, { timeout: TEARDOWN_MS });
        } catch {
          // Gone or slow: it is closed all the same.
        }
      }
      await bridge.close().catch(() => {});
    },
  };
}

/** What the composer holds once `text` from an app is added after what is typed; null when too long. */
export function composed(draft: string, text: string): string | null {
  const next = [draft.trim() ? draft.replace(/\s+$/, '') : '', text].filter((x) => x !== '').join('\n\n');
  return next.length > DRAFT_CHARS ? null : next;
}
