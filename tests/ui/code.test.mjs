// Code blocks: highlighted in the languages people ask local models about
// (not only the first fifteen), each with Copy and a Wrap toggle for long
// lines.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('kotlin, toml and dockerfile blocks are highlighted; Wrap wraps a long line and unwraps it', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const long = `val line = "${'x'.repeat(160)}"`;
    const md = ['```kotlin', 'fun main() { println("hi") }', long, '```', '', '```toml', '[package]', 'name = "hearth"', '```', '', '```dockerfile', 'FROM debian:12', '```'].join('\n');
    await page.evaluate((t) => Object.assign(window.__hearthMock.config, { streamText: t, tickMs: 2 }), md);
    await send(page, 'stream text');
    await waitIdle(page);
    const a = page.getByTestId('message-assistant').last();
    const blocks = a.locator('pre.code');
    assert.equal(await blocks.count(), 3);
    assert.deepEqual(await a.locator('.code-lang').allTextContents(), ['kotlin', 'toml', 'dockerfile']);
    for (const i of [0, 1, 2]) assert.ok((await blocks.nth(i).locator('[class^=hljs-]').count()) > 0, `block ${i} highlighted`);
    assert.equal(await blocks.nth(0).locator('.hljs-keyword').first().textContent(), 'fun');

    const first = blocks.nth(0);
    const scrolls = () => first.evaluate((pre) => pre.scrollWidth > pre.clientWidth + 1);
    assert.equal(await scrolls(), true, 'the long line scrolls');
    const wrap = first.getByTestId('wrap-code');
    await wrap.click();
    assert.equal(await wrap.getAttribute('aria-pressed'), 'true');
    assert.equal(await scrolls(), false, 'wrapped, nothing scrolls');
    await wrap.click();
    assert.equal(await wrap.getAttribute('aria-pressed'), 'false');
    assert.equal(await scrolls(), true);
    assert.equal(await first.getByTestId('copy-code').count(), 1);
  }));
