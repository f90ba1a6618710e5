// Accessibility, checked: axe-core on the conversation (with a tool run and
// an approval card), every panel, the palette and a menu, in the light and
// the dark theme, with no serious or critical finding (nor moderate); the
// edge of every field at 3:1 against what it sits on; the end of an answer
// said politely to screen readers; no animation under reduced motion.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe's findings on the page as it is, serious enough to fail (minor ones are left to review). */
async function findings(page, where) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return r.violations
    .filter((v) => v.impact !== 'minor')
    .map((v) => `${where}: ${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}: ${v.nodes[0]?.failureSummary ?? ''}`);
}

/** Fields whose edge is under 3:1 against the background they sit on. */
function weakEdges(page) {
  return page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    const backdrop = (el) => {
      for (let e = el.parentElement; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const weak = [];
    for (const el of document.querySelectorAll('input:not([type=checkbox]):not([type=radio]):not([type=file]), textarea, select')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      const edge = ratio(rgb(getComputedStyle(el).borderTopColor).slice(0, 3), backdrop(el));
      if (edge < 3) weak.push(`${el.getAttribute('data-testid') ?? el.getAttribute('aria-label') ?? el.tagName}: ${edge.toFixed(2)}`);
    }
    return weak;
  });
}

for (const theme of ['light', 'dark']) {
  test(`axe finds nothing serious on every panel, the palette and a menu (${theme} theme); fields' edges are 3:1`, () =>
    withApp('', async ({ page }) => {
      await page.getByTestId('open-settings').click();
      await page.getByTestId(`theme-${theme}`).click();
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      await page.keyboard.press('Escape');
      // A tool run, and an approval card waiting.
      await send(page, 'tools');
      await waitIdle(page);
      await send(page, 'write');
      await page.getByTestId('approval').first().waitFor();
      const found = [...(await findings(page, 'conversation'))];
      const edges = [...(await weakEdges(page))];
      await page.getByTestId('approve-deny').first().click();
      await waitIdle(page);
      for (const p of ['models', 'tools', 'memory', 'profiles', 'settings']) {
        await page.getByTestId(`open-${p}`).click();
        await page.getByTestId(`panel-${p}`).waitFor();
        found.push(...(await findings(page, p)));
        edges.push(...(await weakEdges(page)).map((e) => `${p}: ${e}`));
      }
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+k');
      await page.getByTestId('palette').waitFor();
      found.push(...(await findings(page, 'palette')));
      await page.keyboard.press('Escape');
      await page.getByTestId('model-picker').click();
      await page.getByTestId('model-menu').waitFor();
      found.push(...(await findings(page, 'model menu')));
      assert.deepEqual(found, []);
      assert.deepEqual(edges, []);
    }));
}

test('the end of an answer is said to screen readers once, politely; reduced motion stops the waiting dots', () =>
  withApp('', async ({ page }) => {
    const announcer = page.getByTestId('announcer');
    assert.equal(await announcer.getAttribute('aria-live'), 'polite');
    assert.equal(await announcer.innerText(), '');
    await send(page, 'hello');
    await waitIdle(page);
    assert.match(await announcer.innerText(), /^Answer: /);
    await send(page, 'fail');
    await waitIdle(page);
    assert.match(await announcer.innerText(), /^The answer failed: /);

    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.evaluate(() => (window.__hearthMock.config.slowDelayMs = 5000));
    await send(page, 'slow');
    const dots = page.getByTestId('waiting').locator('.dot').first();
    await dots.waitFor();
    assert.equal(await dots.evaluate((d) => getComputedStyle(d).animationName), 'none');
    await page.getByTestId('stop-button').click();
    await waitIdle(page);
  }));
