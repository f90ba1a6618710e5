// The mock's MCP servers: the configuration as the shell checks it (the
// same shapes and the first error), and states a test can drive: a server
// whose command names "everything" starts with two tools, any other
// command is not found.
import type { McpServerView, McpView } from '../bindings';
import { err } from './pickScript';

type Config = { command?: string; args?: string[]; url?: string; env?: Record<string, string>; headers?: Record<string, string> };

export class MockMcp {
  servers: Record<string, Config> = {};
  states = new Map<string, McpServerView>();

  view(): McpView {
    const servers = Object.keys(this.servers).sort().map((name) => this.states.get(name) ?? this.stopped(name));
    // As on a machine without a secret store: values stay in the database.
    const values = Object.values(this.servers).some((c) => Object.keys(c.env ?? {}).length + Object.keys(c.headers ?? {}).length > 0);
    const values_kept = values ? "environment and header values are kept in Hearth's database, readable by your account only: no secret store answers (mock)" : null;
    return { servers, config: JSON.stringify({ mcpServers: this.servers }, null, 2), values_kept };
  }

  save(text: string): McpView {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw err('invalid_input', `not an MCP configuration: ${String(e)}`, 'none');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw err('invalid_input', 'not an MCP configuration: expected a JSON object', 'none');
    const top = parsed as Record<string, unknown>;
    const servers = (top.mcpServers ?? top.servers ?? top) as Record<string, Config>;
    for (const [name, c] of Object.entries(servers)) {
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) throw err('invalid_input', `server name "${name}" must be 1 to 32 letters, digits, '-' or '_'`, 'none');
      if (!c.command === !c.url) throw err('invalid_input', `server "${name}": give "command" (a program to run) or "url"`, 'none');
    }
    const before = this.servers;
    this.servers = servers;
    for (const name of [...this.states.keys()]) if (!(name in servers)) this.states.delete(name);
    // As the shell does: what the save added or changed starts at once.
    for (const [name, c] of Object.entries(servers)) {
      if (JSON.stringify(before[name]) === JSON.stringify(c)) continue;
      this.states.set(name, { ...this.stopped(name), state: 'starting' });
      setTimeout(() => {
        if (this.servers[name] === c) this.restart(name);
      }, 300);
    }
    return this.view();
  }

  restart(name: string): McpServerView {
    const c = this.servers[name];
    if (!c) throw err('invalid_input', `no MCP server named "${name}"`, 'none');
    const runs = this.runs(c);
    const s: McpServerView = runs.includes('server-basic-vanillajs')
      ? {
          // The MCP Apps example: a tool with an app, and one for its app only.
          name, runs, state: 'running', detail: 'Basic MCP App Server (Vanilla JS) 1.0.0', retry_in_secs: null,
          tools: [
            { name: `${name}__get-time`, description: `[MCP server ${name}] Returns the current server time`, read_only: null, destructive: null, open_world: null, has_app: true, app_only: false },
            { name: `${name}__refresh`, description: `[MCP server ${name}] Refreshes the app`, read_only: true, destructive: false, open_world: false, has_app: true, app_only: true },
          ],
        }
      : runs.includes('everything')
      ? {
          name, runs, state: 'running', detail: 'mcp-servers/everything 2.0.0', retry_in_secs: null,
          tools: [
            { name: `${name}__echo`, description: `[MCP server ${name}] Echoes back the input`, read_only: true, destructive: false, open_world: false, has_app: false, app_only: false },
            { name: `${name}__write-note`, description: `[MCP server ${name}] Writes a note`, read_only: false, destructive: true, open_world: null, has_app: false, app_only: false },
          ],
        }
      : { name, runs, state: 'failed', detail: `command \`${c.command}\` was not found. Hearth searched its own PATH (/usr/bin:/bin) and your login shell's PATH: /usr/bin:/bin. Install it, or give its full path in "command".`, retry_in_secs: 2, tools: [] };
    this.states.set(name, s);
    return s;
  }

  log(name: string): string[] {
    return this.states.get(name)?.state === 'running' ? ['Starting default (STDIO) server...'] : [];
  }

  private runs(c: Config): string {
    return c.url ?? [c.command, ...(c.args ?? [])].join(' ');
  }

  private stopped(name: string): McpServerView {
    return { name, runs: this.runs(this.servers[name] ?? {}), state: 'stopped', detail: '', retry_in_secs: null, tools: [] };
  }
}
