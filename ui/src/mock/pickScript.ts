// Which script a mock run follows, picked by the message's text (the list
// is in backend.ts's header), and the scripts too short for a file of
// their own: the default Markdown answer, "tools" (two tools, one a
// sub-agent), "think", "slow", "fail", "revise" (text_replaced), "rethink" (text taken back as reasoning), "limit" (fix_config), "repeat"
// (no recovery), "notfound", "mcp down" (tools_unavailable), "host down"
// (host_failover), "tool fails" (a failed call, stored as one), "xss", "links",
// "stream text"; "mcp app …" is in mcpApps.ts.
import type { ErrorInfo, GuardMode, MessageView } from '../bindings';
import { compactScript, contextScript } from './contextScripts';
import { fetchScript } from './guardScripts';
import { mcpAppScript } from './mcpApps';
import { DEEP_PAYLOAD, XSS_PAYLOAD } from './payloads';
import { planWorkflowScript } from './planScript';
import { deepScript, nestedScript, oddCardsScript, planScript, shellScript, switchScript, twinScript, writeScript, type Body, type Step, type StoredSub } from './scripts';

/** What the scripts read of the mock's settings. */
export interface ScriptConfig {
  slowDelayMs: number;
  streamText: string;
  /** Characters a delta of "stream text" carries (1 unless a test streams a long answer). */
  streamChunk?: number;
  streamStored: Partial<MessageView> | null;
}

/** An error as the shell sends it. */
export const err = (code: ErrorInfo['code'], message: string, recovery: ErrorInfo['recovery'] = 'retry'): ErrorInfo => ({ code, recovery, message, details: null });

/** Sections of headings, paragraphs, lists and code, up to `bytes` long. */
export function longMarkdown(bytes: number): string {
  let out = '';
  for (let i = 1; out.length < bytes; i++) {
    out += `## Section ${i}\n\nThis part explains **step ${i}** with \`code_${i}()\` and a [link](https://example.com/${i}); `
      + 'it runs on for a while, as answers do, so that the paragraph wraps over a few lines of the window.\n\n'
      + `- first point of ${i}\n- second point, *emphasised*\n\n`
      + `\`\`\`rust\nfn step_${i}() -> u32 {\n    ${i}\n}\n\`\`\`\n\n`;
  }
  return out;
}

/** The steps of a run answering `text` with `model`. */
export function pickScript(text: string, model: string, guard: GuardMode, config: ScriptConfig, requestId: () => string): Step[] {
  const deltas = (s: string, n = 6) => {
    const out: Step[] = [];
    const size = Math.max(1, Math.ceil(s.length / n));
    for (let i = 0; i < s.length; i += size) out.push({ ev: { type: 'text_delta', delta: s.slice(i, i + size) } as Body });
    return out;
  };
  const usage = { type: 'usage', usage: { prompt_tokens: 1200, prompt_cached_tokens: 1150, completion_tokens: 300, load_ms: 5, prompt_eval_ms: 100, eval_ms: 6000, tokens_per_second: 50, done_reason: 'stop' } } as Body;
  const end = (stored?: Partial<MessageView>[], subagents?: StoredSub[]) => ({ ev: { type: 'stream_end', iterations: 1, ...(stored ? { stored } : {}), ...(subagents ? { subagents } : {}) } as Body });
  const kit = { deltas, usage, end, model, requestId, text, guard };
  const pct = /^context (\d+)/.exec(text);
  if (pct) return contextScript(kit, Number(pct[1]));
  if (text.startsWith('compact')) return compactScript(kit);
  if (text.startsWith('mcp app')) return mcpAppScript(kit);
  if (/^\s*\/plan(\s|$)/.test(text)) return planWorkflowScript(kit);
  if (text.startsWith('switch to ')) return switchScript(kit, text.slice('switch to '.length));
  if (text.startsWith('fetch')) return fetchScript(kit);
  if (text.includes('hook')) return writeScript(kit, true);
  if (text.includes('write')) return writeScript(kit);
  if (text.includes('shell')) return shellScript(kit);
  if (text.includes('hostile markdown')) return [...deltas(DEEP_PAYLOAD, 4), { ev: usage }, end()];
  if (text.includes('deep')) return deepScript(kit);
  if (text.includes('twin')) return twinScript(kit);
  if (text.includes('odd cards')) return oddCardsScript(kit);
  if (text.includes('nested')) return nestedScript(kit);
  if (text.includes('xss')) return [...deltas(XSS_PAYLOAD, 4), { ev: usage }, end()];
  if (text.startsWith('stream text')) {
    const n = Math.max(1, config.streamChunk ?? 1);
    const all = Array.from(config.streamText);
    const chars = Array.from({ length: Math.ceil(all.length / n) }, (_, i) => ({ ev: { type: 'text_delta', delta: all.slice(i * n, (i + 1) * n).join('') } as Body }));
    return [...chars, { ev: usage }, end(config.streamStored ? [config.streamStored] : undefined)];
  }
  if (text.includes('links')) {
    const md = 'Read [the docs](https://example.com/docs) and [mail us](mailto:hi@example.com). [Send the key](mailto:hi@example.com?attach=/home/u/.ssh/id_ed25519).\n\n![café menu](<https://example.com/café menu.png>) ![kept](https://example.com/a%20b.png)';
    return [...deltas(md, 4), { ev: usage }, end()];
  }
  if (text.includes('runaway')) {
    // A model that loops inside a code block: Hearth ends it with its notice.
    const body = 'Here is the loop:\n```\n' + 'again\n'.repeat(12) + '\n\n[Hearth ended this answer: the model was repeating the same text over and over.]';
    return [...deltas(body, 4), { ev: usage }, end()];
  }
  if (text.includes('slow start')) {
    // A model loaded from disk, a long prompt read, a tool call written
    // (an OpenAI-compatible server streams its arguments), then six
    // deltas of an answer: each phase long enough to be seen.
    return [
      { ev: { type: 'model_loading', model: 'qwen2.5-coder:0.5b' } as Body },
      { ev: { type: 'model_loaded', model: 'qwen2.5-coder:0.5b' } as Body, delay: 20_000 },
      { ev: { type: 'context_usage', tokens: 2340, window: 8192, warning: false } as Body },
      { ev: { type: 'tool_call_writing', tool: 'run_shell', chars: 0 } as Body, delay: 10_000 },
      { ev: { type: 'tool_call_writing', tool: 'run_shell', chars: 200 } as Body, delay: 5_000 },
      { ev: usage, delay: 1_000 },
      { ev: { type: 'context_usage', tokens: 2410, window: 8192, warning: false } as Body },
      ...deltas('It is done, all fine.'),
      { ev: usage, delay: 5_000 },
      end(),
    ];
  }
  if (text.includes('slow tool')) {
    // A tool ran, then the model writes for a minute with nothing to show
    // (a server holding back a tool call until it is whole does this).
    const args = { path: '.' };
    return [
      { ev: { type: 'tool_started', call_id: 'call_l', name: 'list_dir', arguments: args } as Body },
      { ev: { type: 'tool_event', call_id: 'call_l', name: 'list_dir', outcome: 'ok', output: 'notes.txt', duration_ms: 2 } as Body },
      { ev: usage, delay: 60_000 },
      ...deltas('There is one file, notes.txt.'),
      { ev: usage },
      end(),
    ];
  }
  if (text.includes('tool fails')) {
    // A write outside the workspace fails; the core stores its result with
    // the error status, so the stored card says "failed" like the live one.
    const args = { path: '../escape.txt', content: 'x' };
    const output = 'error: ../escape.txt is outside the workspace /home/user/work';
    return [
      { ev: { type: 'tool_started', call_id: 'call_w', name: 'write_file', arguments: args } as Body },
      { ev: { type: 'tool_event', call_id: 'call_w', name: 'write_file', outcome: 'error', output, duration_ms: 1 } as Body },
      ...deltas('I could not write it there.'),
      { ev: usage },
      end([
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_w', name: 'write_file', arguments: args }] },
        { role: 'tool', content: output, tool_call_id: 'call_w', tool_name: 'write_file', status: 'error' },
        { role: 'assistant', content: 'I could not write it there.' },
      ]),
    ];
  }
  if (text.includes('host down')) {
    // The profile's host refused the connection before any output: the
    // run moved to its failover host, which answered.
    const reason = 'cannot reach the model server at http://gpu1:11434: is it running? (connection refused)';
    return [
      { ev: { type: 'host_failover', from: 'gpu1', to: 'gpu2', reason } as Body },
      ...deltas('Answered by the spare machine.'),
      { ev: usage },
      end([{ role: 'assistant', content: 'Answered by the spare machine.' }]),
    ];
  }
  if (text.includes('mcp down')) {
    // A profile's MCP server could not start: the run says so and answers.
    const reason = 'command `npx` was not found. Hearth searched its own PATH (/usr/bin) and your login shell\'s PATH: /usr/bin. Install Node.js (it brings npx), or give its full path in "command".';
    const args = { message: 'hi' };
    return [
      { ev: { type: 'tools_unavailable', server: 'web', reason } as Body },
      { ev: { type: 'tool_started', call_id: 'call_echo', name: 'everything__echo', arguments: args } as Body },
      { ev: { type: 'tool_event', call_id: 'call_echo', name: 'everything__echo', outcome: 'ok', output: 'Echo: hi', duration_ms: 12 } as Body },
      ...deltas('Answered without the web tools.'),
      { ev: usage },
      end([
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_echo', name: 'everything__echo', arguments: args }] },
        { role: 'tool', content: 'Echo: hi', tool_call_id: 'call_echo', tool_name: 'everything__echo' },
        { role: 'assistant', content: 'Answered without the web tools.' },
      ]),
    ];
  }
  if (text.includes('notfound')) {
    return [{ ev: { type: 'error', error: err('model_not_found', 'model "ghost:7b" not found, try pulling it first', 'pull_model'), partial_text: '' } as Body }];
  }
  if (text.includes('rethink')) {
    // What the core sends when a lone closing tag shows that what it had
    // shown was reasoning: the text cleared, then the reasoning.
    return [
      ...deltas('Step one: add 17 and 25. ', 3),
      { ev: { type: 'text_replaced', text: '' } as Body },
      { ev: { type: 'thinking_delta', delta: 'Step one: add 17 and 25. ' } as Body },
      { ev: { type: 'text_delta', delta: 'The answer is 42.' } as Body },
      { ev: usage },
      end([{ role: 'assistant', content: 'The answer is 42.', thinking: 'Step one: add 17 and 25. ' }]),
    ];
  }
  if (text.includes('revise')) {
    // What the core sends when it takes back text it had shown.
    return [...deltas('A draft answer.', 3), { ev: { type: 'text_replaced', text: 'The answer.' } as Body }, { ev: usage }, end([{ role: 'assistant', content: 'The answer.' }])];
  }
  if (text.includes('limit')) {
    const message = 'stopped after 10 model calls, the profile\'s limit, while the model was still calling tools; raise max_iterations in the profile or ask it to continue';
    return [...deltas('Still working', 2), { ev: { type: 'error', error: err('max_iterations', message, 'fix_config'), partial_text: 'Still working' } as Body }];
  }
  if (text.includes('repeat')) {
    const message = 'stopped: the model kept making the same tool call after it was asked to change course; rephrase the request, or use a larger model';
    return [{ ev: { type: 'error', error: err('repeated_tool_calls', message, 'none'), partial_text: '' } as Body }];
  }
  if (text.includes('fail')) {
    return [...deltas('This answer will break in the mid', 3), { ev: { type: 'error', error: err('stream_truncated', 'The stream ended early.'), partial_text: 'This answer will break in the mid' } as Body }];
  }
  if (text.includes('long markdown')) {
    // 64 KB of the Markdown answers are made of, in 128-character deltas.
    const answer = longMarkdown(64 * 1024);
    const steps: Step[] = [];
    for (let i = 0; i < answer.length; i += 128) {
      steps.push({ ev: { type: 'text_delta', delta: answer.slice(i, i + 128) } as Body, delay: config.slowDelayMs });
    }
    return [...steps, { ev: usage }, end([{ role: 'assistant', content: answer }])];
  }
  if (text.includes('slow')) {
    // Bold opened at word2 and never closed: a Stop cuts it open.
    const words = Array.from({ length: 300 }, (_, i) => `${i === 2 ? '**' : ''}word${i} `);
    return [...words.map((w) => ({ ev: { type: 'text_delta', delta: w } as Body, delay: config.slowDelayMs })), { ev: usage }, end()];
  }
  if (text.includes('think')) {
    return [
      { ev: { type: 'thinking_delta', delta: 'Native thinking: the user asks ' } as Body },
      { ev: { type: 'thinking_delta', delta: 'about thinking.' } as Body },
      { ev: { type: 'text_delta', delta: '<thi' } as Body },
      { ev: { type: 'text_delta', delta: 'nk>Tagged reasoning here.</th' } as Body },
      { ev: { type: 'text_delta', delta: 'ink>' } as Body },
      // The core times the reasoning until the answer's first piece.
      { ev: { type: 'thinking_ended', ms: 2300 } as Body },
      { ev: { type: 'text_delta', delta: 'The final answer is **42**.' } as Body },
      { ev: usage },
      end([{ role: 'assistant', content: 'The final answer is **42**.', thinking: 'Native thinking: the user asks about thinking. Tagged reasoning here.' }]),
    ];
  }
  if (text.includes('plan')) {
    return planScript(kit);
  }
  if (text.includes('tools')) {
    const sub = (b: Body): Body => ({ ...b, is_subagent: true, session_id: 'subagent_abc123', run_id: 'subrun1', parent_call_id: 'call_spawn' } as Body);
    return [
      { ev: { type: 'tool_started', call_id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } } as Body },
      { ev: { type: 'tool_started', call_id: 'call_spawn', name: 'spawn_agent', arguments: { task: 'summarize' } } as Body },
      { ev: usage },
      { ev: { type: 'tool_event', call_id: 'call_read', name: 'read_file', outcome: 'ok', output: '# Readme contents', duration_ms: 12 } as Body },
      { ev: sub({ type: 'run_started', model, profile: 'Agent', context_window: 8192 } as Body) },
      { ev: sub({ type: 'tool_started', call_id: 'call_sub_shell', name: 'run_shell', arguments: { command: 'ls' } } as Body), delay: 150 },
      { ev: sub({ type: 'tool_event', call_id: 'call_sub_shell', name: 'run_shell', outcome: 'error', output: 'permission denied', duration_ms: 3 } as Body), delay: 150 },
      { ev: sub({ type: 'text_delta', delta: 'Sub-agent summary text.' } as Body) },
      { ev: sub({ type: 'stream_end', iterations: 2 } as Body) },
      { ev: { type: 'tool_event', call_id: 'call_spawn', name: 'spawn_agent', outcome: 'ok', output: 'Sub-agent summary text.', duration_ms: 480 } as Body },
      ...deltas('Both tools finished.', 2),
      { ev: usage },
      end([
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } }, { id: 'call_spawn', name: 'spawn_agent', arguments: { task: 'summarize' } }] },
        { role: 'tool', content: '# Readme contents', tool_call_id: 'call_read', tool_name: 'read_file' },
        { role: 'tool', content: 'Sub-agent summary text.', tool_call_id: 'call_spawn', tool_name: 'spawn_agent' },
        { role: 'assistant', content: 'Both tools finished.' },
      ], [
        { parent_call_id: 'call_spawn', session_id: 'subagent_abc123', run_id: 'subrun1', profile: 'Agent', messages: [
          { role: 'user', content: 'summarize' },
          { role: 'assistant', content: '', tool_calls: [{ id: 'call_sub_shell', name: 'run_shell', arguments: { command: 'ls' } }] },
          { role: 'tool', content: 'permission denied', tool_call_id: 'call_sub_shell', tool_name: 'run_shell', status: 'error' },
          { role: 'assistant', content: 'Sub-agent summary text.' },
        ] },
      ]),
    ];
  }
  return [
    ...deltas('Hello from **Hearth**. Here is code:\n\n```rust\nfn main() {\n    println!("hi");\n}\n```\n\nAnd a [link](https://example.com).', 8),
    { ev: usage },
    end(),
  ];
}
