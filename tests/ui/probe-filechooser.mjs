// Reproduces the file chooser race that failed CI twice (not a test; run it
// by hand beside a CPU load, e.g. four `sh -c 'while :; do :; done'`):
//   npm run build:mock && node tests/ui/probe-filechooser.mjs old 120
//   node tests/ui/probe-filechooser.mjs new 120
// `old` races `page.waitForEvent('filechooser')` with the palette's Enter, as
// the sessions test once did; `new` uses the harness's `fileChoosers`. Each
// round opens the palette, picks Import with Enter and counts a chooser that
// was never reported within 3 s as lost.
import { fileChoosers, launch, openApp, startServer } from './harness.mjs';
const mode = process.argv[2] === 'new' ? 'new' : 'old';
const rounds = Number(process.argv[3] ?? 40);
const server = await startServer();
const browser = await launch();
const app = await openApp(browser, server.url, '');
const { page } = app;
const choosers = mode === 'new' ? await fileChoosers(page) : null;
let lost = 0;
for (let i = 0; i < rounds; i++) {
  await page.keyboard.press('Control+k');
  await page.getByTestId('palette').waitFor();
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'palette-input');
  await page.keyboard.type('import');
  await page.waitForFunction(() => {
    const items = [...document.querySelectorAll('[data-testid=palette-item]')];
    return items.length === 1 && items[0].getAttribute('data-action') === 'import';
  });
  let chooser = null;
  try {
    if (mode === 'new') {
      await page.keyboard.press('Enter');
      chooser = await choosers.next(3000);
    } else {
      [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: 3000 }), page.keyboard.press('Enter')]);
    }
  } catch { lost++; }
  if (chooser) await chooser.setFiles({ name: 'x.json', mimeType: 'application/json', buffer: Buffer.from('{"a":1}') });
  await page.getByTestId('palette').waitFor({ state: 'detached' });
}
console.log(`${mode}: ${lost} of ${rounds} choosers lost`);
await app.close(); await browser.close(); await server.close();
