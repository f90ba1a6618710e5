// Model output is untrusted: nothing in it may run or reach the network.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('script, event handlers, images, iframes, svg, javascript: links do nothing', () =>
  withApp('', async ({ page, requests }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'xss');
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByText('safe link').waitFor();
    // Click everything clickable in the answer and open <details>.
    for (const a of await answer.locator('a').all()) await a.click();
    // The clicks have been handled once the safe link reached the opener.
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'open_link' && c.args.url === 'https://example.com/docs'), null, { timeout: 10_000 });
    assert.equal(await page.evaluate(() => window.__xss), undefined);
    // The answer's action icons are the app's own (Lucide's, by their class); none other.
    for (const tag of ['script', 'img', 'iframe', 'svg:not(.lucide-icon)', 'form', 'input', 'style', 'foreignObject']) {
      assert.equal(await answer.locator(tag).count(), 0, `<${tag}> in the answer`);
    }
    assert.equal(await answer.getByTestId('markdown').locator('svg').count(), 0, '<svg> in what the model wrote');
    assert.equal(await answer.locator('[style], [onerror], [onload], [ontoggle]').count(), 0);
    for (const a of await answer.locator('a[href]').all()) {
      assert.match(await a.getAttribute('href'), /^(https?:|mailto:)/);
    }
    assert.deepEqual(requests.filter((u) => u.includes('evil.example')), []);
    // Only the safe link reached the opener (javascript: hrefs were removed).
    const opened = await page.evaluate(() => window.__hearthMock.calls.filter((c) => c.cmd === 'open_link').map((c) => c.args.url));
    assert.ok(opened.every((u) => /^https?:/.test(u)), String(opened));
    assert.ok(opened.includes('https://example.com/docs'));
  }));

test('an answer nested far too deep (TeX braces, quotes, a list) is shown as plain text; the page stays responsive', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    await send(page, 'hostile markdown');
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    await answer.getByText('After the deep parts.', { exact: false }).waitFor();
    await page.getByTestId('message-user').getByText('hostile markdown').waitFor();
    // The page still answers: the next message streams and renders Markdown.
    await send(page, 'hello');
    await waitIdle(page);
    await page.getByTestId('message-assistant').last().locator('pre.code code .hljs-keyword').first().waitFor();
  }));
