// Attachments: a picture pasted, dropped or picked goes to a model that can
// see (the shell gets its bytes once, the message names it), is shown as a
// thumbnail in the composer, in the sent message and after the session is
// opened again; a model that cannot see refuses it before anything is sent;
// a text file over the room one message has says it was cut; a file that is
// neither is refused with the reason.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

/** The 1×1 PNG of the CLI tests, base64. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';

/** Pastes a file into the composer as a clipboard would. */
async function paste(page, name, base64, type) {
  await page.getByTestId('composer-input').evaluate(
    (el, [n, b, t]) => {
      const bytes = Uint8Array.from(atob(b), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], n, { type: t }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    [name, base64, type],
  );
}

async function pickModel(page, model) {
  await page.getByTestId('model-picker').click();
  await page.locator(`[data-testid=model-option][data-model="${model}"]`).click();
  await page.getByTestId('current-model').filter({ hasText: model }).waitFor();
}

test('a pasted picture goes to a model that can see, and is shown in the message and after reopening', () =>
  withApp('vision=1', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await pickModel(page, 'gemma3:4b');
    await paste(page, 'dot.png', PNG, 'image/png');
    const chip = page.getByTestId('attachments').getByTestId('attachment');
    await chip.waitFor();
    assert.equal(await chip.getAttribute('data-kind'), 'image');
    await page.getByTestId('attachment-image').waitFor();
    const [attached] = await calls(page, 'attach_file');
    assert.equal(attached.args.data, PNG, 'the bytes, base64, once');

    await send(page, 'what is this?');
    await waitIdle(page);
    const [sent] = await calls(page, 'send_message');
    assert.equal(sent.args.attachments.length, 1);
    assert.equal(sent.args.attachments[0].name, 'dot.png');
    assert.match(sent.args.attachments[0].sha256, /^[0-9a-f]{64}$/);
    assert.equal(await page.getByTestId('composer-wrap').getByTestId('attachment').count(), 0, 'the composer is empty again');
    const row = page.getByTestId('user-row').filter({ hasText: 'what is this?' });
    const img = row.getByTestId('attachment-image');
    await img.waitFor();
    assert.equal(await img.getAttribute('src'), `data:image/png;base64,${PNG}`);
    assert.equal(await img.getAttribute('alt'), 'dot.png');

    // Another session, then back: the stored message shows the picture again.
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.getByTestId('user-row').filter({ hasText: 'Hello there' }).waitFor();
    await page.getByTestId('session-item').nth(0).getByTestId('session-open').click();
    await page.getByTestId('user-row').filter({ hasText: 'what is this?' }).getByTestId('attachment-image').waitFor();
  }));

test('a model that cannot see refuses the picture before sending, and the picture can be taken out', () =>
  withApp('vision=1', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await page.getByTestId('current-model').filter({ hasText: 'qwen3:8b' }).waitFor();
    await paste(page, 'dot.png', PNG, 'image/png');
    const refusal = page.getByTestId('attach-refusal');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /qwen3:8b cannot see images, so a picture cannot be sent to it/);
    await page.getByTestId('composer-input').fill('look');
    assert.equal(await page.getByTestId('send-button').isDisabled(), true);
    await page.getByTestId('composer-input').press('Enter');
    assert.equal((await calls(page, 'send_message')).length, 0, 'nothing was sent');
    assert.equal(await page.getByTestId('composer-input').inputValue(), 'look', 'the text stays');

    // Switching to a model that sees lifts the refusal.
    await pickModel(page, 'gemma3:4b');
    await refusal.waitFor({ state: 'detached' });
    await pickModel(page, 'qwen3:8b');
    await refusal.waitFor();
    await page.getByTestId('attachment-remove').click();
    await refusal.waitFor({ state: 'detached' });
    await page.getByTestId('send-button').click();
    await waitIdle(page);
    const [sent] = await calls(page, 'send_message');
    assert.deepEqual(sent.args.attachments, []);
  }));

test('a text file over the room of one message is sent cut, and says so; a binary file is refused', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n');
    await page.getByTestId('attach-input').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from(long) });
    const chip = page.getByTestId('attachments').getByTestId('attachment');
    await chip.waitFor();
    assert.equal(await chip.getByTestId('attachment-name').innerText(), 'notes.txt');
    // A second one, dropped on the composer: it gets no room left but its frame.
    await page.getByTestId('composer-wrap').evaluate((el) => {
      const data = new DataTransfer();
      data.items.add(new File(['# plan\n'], 'small.md', { type: 'text/markdown' }));
      el.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      el.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await page.getByTestId('composer-wrap').getByTestId('attachment').nth(1).waitFor();
    await send(page, 'summarize');
    await waitIdle(page);
    const row = page.getByTestId('user-row').filter({ hasText: 'summarize' });
    const cut = row.getByTestId('attachment-cut');
    await cut.nth(1).waitFor();
    assert.match(await cut.nth(0).innerText(), /cut to fit: the model got 7,783 of 28,889 characters/);
    assert.equal(await row.getByTestId('attachment-name').nth(1).innerText(), 'small.md');
    assert.match(await cut.nth(1).innerText(), /not given to the model: the message had no room left for it/);

    // Bytes that are neither a picture nor text.
    await page.getByTestId('attach-input').setInputFiles({ name: 'a.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0, 159, 146, 150]) });
    await page.getByTestId('toast').filter({ hasText: 'cannot attach a.bin: it is neither a picture' }).waitFor();
    assert.equal(await page.getByTestId('composer-wrap').getByTestId('attachment').count(), 0);
  }));
