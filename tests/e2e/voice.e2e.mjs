// Voice in the real app: Hearth's own speech-to-text server (voice/, with
// the tiny English Whisper model from PyPI) added in the Tools panel, its
// "microphone" a recording made here (espeak-ng speaks the sentence, sox
// plays it in through HEARTH_STT_CAPTURE). With "send at once" off the
// transcript lands in the composer; sent from there, hearth-sim answers
// it. Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { appFor, cleanup, click, removeDir, startSim } from './owned.mjs';
import { captureWindow, eventually, setSettingsBox } from './support.mjs';
import { answer } from './x11.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;
const dir = mkdtempSync(path.join(tmpdir(), 'hearth-e2e-voice-'));

after(async () => {
  await browser?.deleteSession();
  await cleanup();
  await removeDir(dir);
});

const tools = process.env.HEARTH_TEST_TOOLS ?? path.join(homedir(), '.cache/hearth-test-tools');
const python = path.join(tools, 'voice/venv/bin/python');
const server = path.resolve('voice/hearth_stt.py');

test('what is said lands in the composer, and sent from there it is answered', async () => {
  assert.ok(existsSync(python), `${python} is missing: run scripts/setup.sh --test`);
  const spoken = path.join(dir, 'spoken.wav');
  const said = path.join(dir, 'said.wav');
  execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', spoken, 'What is the capital of France?']);
  // A second of quiet after it: the pause that ends the utterance.
  execFileSync('sox', ['-R', spoken, '-r', '16000', '-c', '1', '-b', '16', said, 'pad', '0.3', '1.0']);

  const url = await startSim([{ name: 'qwen3:8b', capabilities: ['completion', 'tools'] }], 0, [
    { when: 'capital', content: 'Paris is the capital of France.' },
    { when: 'Write a title of at most 6 words', content: 'Capital of France' },
  ]);
  browser = await appFor(url);

  await click(browser, '[data-testid="open-tools"]');
  const config = browser.$('[data-testid="mcp-config"]');
  await config.waitForExist({ timeout: 30_000 });
  const capture = `sox ${said} -t raw -r 16000 -e signed -b 16 -c 1 -`;
  await config.setValue(JSON.stringify({ mcpServers: { voice: { command: python, args: [server], env: { HEARTH_STT_CAPTURE: capture } } } }));
  await click(browser, '[data-testid="mcp-save"]');
  // The native confirmation of a program started by the save (review N11).
  await answer('Hearth: start MCP servers?', 'alt+s');
  await eventually(browser, 'the server is listed', async () =>
    browser.$('[data-testid="mcp-server"][data-server="voice"]').isExisting(),
  );
  await click(browser, '[data-testid="panel-close"]');

  await click(browser, '[data-testid="open-settings"]');
  await setSettingsBox(browser, 'voice-send', false);
  await click(browser, '[data-testid="panel-close"]');

  await click(browser, '[data-testid="voice-button"]');
  // The microphone is asked for natively, once while the app runs (review N11).
  await answer('Hearth: listen to the microphone?', 'alt+l');
  const input = browser.$('[data-testid="composer-input"]');
  const heard = await eventually(browser, 'the transcript in the composer', async () => {
    const v = await input.getValue();
    return /france/i.test(v) ? v : false;
  }, 60_000);
  assert.match(heard, /capital/i);
  // The recording ended: the button is off again.
  await eventually(browser, 'voice is off', async () => (await browser.$('[data-testid="voice-button"]').getAttribute('aria-pressed')) === 'false', 30_000);
  assert.equal(await browser.$('[data-testid="voice-problem"]').isExisting(), false);
  await captureWindow(browser, 'voice.png');

  await click(browser, '[data-testid="send-button"]');
  await eventually(browser, 'the answer', async () => {
    for (const d of await browser.$$('[data-testid="message-assistant"][data-status="done"]')) if ((await d.getText()).includes('Paris is the capital')) return true;
    return false;
  }, 30_000);
  const asked = await (await fetch(`${url}/sim/requests`)).json();
  assert.ok(JSON.stringify(asked).includes(heard.replace(/"/g, '\\"')), 'the model was sent what was heard');
}, { timeout: 180_000 });
