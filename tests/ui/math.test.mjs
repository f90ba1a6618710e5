// Math in answers: `$…$`, `$$…$$`, `\(…\)` and `\[…\]` rendered by KaTeX as
// MathML (no stylesheet or fonts, so the strict CSP holds); prices with
// dollars stay text; TeX that would link or load something does not.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

async function answer(page, text) {
  await page.evaluate((t) => (window.__hearthMock.config.streamText = t), text);
  await send(page, 'stream text');
  await waitIdle(page);
  return page.getByTestId('message-assistant').last();
}

test('formulas in the four usual delimiters render as MathML; dollar amounts stay text', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const md = [
      'Energy is $E = mc^2$ and the root is \\(\\sqrt{2}\\).',
      '',
      '$$',
      '\\int_0^1 x\\,dx = \\frac{1}{2}',
      '$$',
      '',
      'Also \\[ a^2 + b^2 = c^2 \\] holds.',
      '',
      'It costs $5 and $10 in total, as in \\[1\\].',
    ].join('\n');
    const a = await answer(page, md);
    const maths = a.locator('[data-testid=markdown] math');
    assert.equal(await maths.count(), 4);
    assert.deepEqual(await maths.evaluateAll((els) => els.map((e) => e.getAttribute('display'))), [null, null, 'block', 'block']);
    // MathML the browser lays out (not text): the fraction is an <mfrac>.
    assert.equal(await a.locator('math mfrac').count(), 1);
    assert.equal(await a.locator('math msqrt').count(), 1);
    // Prices, and an escaped citation mark, stay text.
    assert.match(await a.locator('p').last().textContent(), /^It costs \$5 and \$10 in total, as in \[1\]\.$/);
    // No style attribute got through (the CSP forbids them).
    assert.equal(await a.locator('[style]').count(), 0);
  }));

test('hostile TeX neither links nor loads, and a broken formula stays readable', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('new-session').click();
    const a = await answer(page, 'See $\\href{javascript:alert(1)}{click}$ and $\\includegraphics{https://evil.example/x.png}$ and $\\frac{1}{$ here.');
    assert.equal(await a.locator('a').count(), 0);
    assert.equal(await a.locator('[href], [src]').count(), 0);
    assert.doesNotMatch(await a.innerHTML(), /(?:href|src)=/);
    assert.match(await a.textContent(), /here\./);
  }));
