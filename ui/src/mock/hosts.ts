// The hosts the mock shell knows: the settings' Ollama (the mock's models)
// and OpenAI-compatible server (not running), and the ones a test adds. A
// host whose URL names port 1 does not answer, like a machine that is off.
// A key is only noted (`keyed`), as the shell keeps it in the secret store.
import type { HostView } from '../bindings';
import { err } from './pickScript';

export class MockHosts {
  added: HostView[] = [];

  constructor(private readonly builtin: () => { url: string; openaiUrl: string; openaiInUse: boolean; models: string[]; reachable: boolean }) {}

  list(): HostView[] {
    const b = this.builtin();
    return [
      { name: 'ollama', kind: 'ollama', url: b.url, builtin: true, reachable: b.reachable, version: b.reachable ? '0.32.15' : null, models: b.reachable ? b.models : [], error: b.reachable ? null : `cannot reach the model server at ${b.url}: is it running?`, keyed: false },
      // Listed once someone chose its URL or a profile names it, as the shell does.
      ...(b.openaiInUse ? [{ name: 'openai', kind: 'openai', url: b.openaiUrl, builtin: true, reachable: false, version: null, models: [], error: `cannot reach the model server at ${b.openaiUrl}: is it running?`, keyed: false } satisfies HostView] : []),
      ...this.added,
    ];
  }

  add(name: string, kind: string, url: string, apiKey: string | null): HostView {
    name = name.trim();
    url = url.trim();
    if (!/^[A-Za-z0-9._-]{1,40}$/.test(name)) throw err('invalid_input', `\`${name}\`: a host's name is letters, digits, \`-\`, \`_\` and \`.\``, 'none');
    if (name === 'ollama' || name === 'openai') throw err('invalid_input', `\`${name}\` is the name of the server in the settings; choose another`, 'none');
    if (!/^https?:\/\//.test(url)) throw err('invalid_input', `\`${url}\` is not an http:// or https:// URL`, 'none');
    if (apiKey && kind === 'ollama') throw err('invalid_input', `\`${name}\` is an Ollama host, and Ollama takes no API key: a key is for an OpenAI-compatible server (--kind openai)`, 'none');
    const keyed = Boolean(apiKey) || this.added.some((x) => x.name === name && x.keyed);
    const down = /:1(\/|$)/.test(url);
    const h: HostView = down
      ? { name, kind, url, builtin: false, reachable: false, version: null, models: [], error: `cannot reach the model server at ${url}: is it running? (connection refused)`, keyed }
      : { name, kind, url, builtin: false, reachable: true, version: kind === 'ollama' ? '0.32.15' : null, models: ['gemma3:12b', 'qwen3:32b'], error: null, keyed };
    this.added = [...this.added.filter((x) => x.name !== name), h];
    return h;
  }

  remove(name: string): void {
    if (!this.added.some((h) => h.name === name)) throw err('invalid_input', `there is no host \`${name}\``, 'none');
    this.added = this.added.filter((h) => h.name !== name);
  }

  has(name: string): boolean {
    return name === 'ollama' || name === 'openai' || this.added.some((h) => h.name === name);
  }
}
