// A picture pasted into the real app goes to a model that can see: the
// simulator gets it as Ollama's `images`, byte for byte, and the sent
// message shows it as a thumbnail, also after the session is opened again.
// Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { answered, appFor, cleanup, click, startSim } from './owned.mjs';
import { captureWindow, eventually } from './support.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
  await cleanup();
});

test('a pasted picture reaches the model as images and stays with the message', async () => {
  const url = await startSim([{ name: 'gemma3:4b', capabilities: ['completion', 'tools', 'vision'] }]);
  browser = await appFor(url);
  const input = browser.$('[data-testid="composer-input"]');
  await input.waitForEnabled({ timeout: 30_000 });
  // A picture drawn in the webview, then what the webview does with a
  // paste from the clipboard: a paste event carrying the file. Its bytes
  // come back to compare with what the model got.
  const PNG = await browser.execute(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 240;
    canvas.height = 160;
    const g = canvas.getContext('2d');
    const grad = g.createLinearGradient(0, 0, 240, 160);
    grad.addColorStop(0, '#c2571a');
    grad.addColorStop(1, '#f2c14e');
    g.fillStyle = grad;
    g.fillRect(0, 0, 240, 160);
    g.fillStyle = '#fff';
    g.font = 'bold 36px sans-serif';
    g.fillText('Hearth', 62, 92);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    const bytes = new Uint8Array(await blob.arrayBuffer());
    const data = new DataTransfer();
    data.items.add(new File([bytes], 'sunset.png', { type: 'image/png' }));
    const el = document.querySelector('[data-testid="composer-input"]');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin);
  });
  await browser.$('[data-testid="composer-wrap"] [data-testid="attachment-image"]').waitForExist({ timeout: 20_000 });
  assert.equal(await answered(browser, 'what is in the picture?'), 'gemma3:4b');

  const requests = await (await fetch(`${url}/sim/requests`)).json();
  const sent = requests
    .filter((r) => r.path === '/api/chat')
    .map((r) => r.body?.messages?.at(-1))
    .find((m) => m?.role === 'user' && m.content === 'what is in the picture?');
  assert.ok(sent, 'the message was sent');
  assert.deepEqual(sent.images, [PNG], 'the picture, byte for byte');

  const img = browser.$('[data-testid="user-row"] [data-testid="attachment-image"]');
  await img.waitForExist({ timeout: 20_000 });
  assert.equal(await img.getAttribute('src'), `data:image/png;base64,${PNG}`);
  await captureWindow(browser, 'attachments.png');

  // A new session, then back: the stored message shows the picture again.
  await click(browser, '[data-testid="new-session"]');
  await eventually(browser, 'the new session is empty', async () => (await browser.$$('[data-testid="user-row"]')).length === 0);
  // A session with no message yet is not listed: the one listed is the first.
  await (await browser.$$('[data-testid="session-item"]'))[0].$('[data-testid="session-open"]').click();
  await browser.$('[data-testid="user-row"] [data-testid="attachment-image"]').waitForExist({ timeout: 20_000 });
});
