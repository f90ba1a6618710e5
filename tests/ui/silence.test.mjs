// What the answer says about itself beside the model's words. A model that
// sends nothing for a while is not three dots for minutes (user pass
// 2026-12, defect 4): after a few seconds of silence the answer says how
// long, and what the model is likely doing; it goes once the model speaks
// (time is the page's fake clock, moved on by the test). Hearth's notice on
// an answer it ended is its own line (defect 9).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });

test('a silent model is said to be silent, with how long, until it speaks', () =>
  withApp('', async ({ page }) => {
    await page.clock.install();
    await send(page, 'slow tool');
    await page.clock.runFor(1_000);
    await page.locator('[data-testid=tool-card]').first().waitFor();
    const note = page.getByTestId('silence-note');
    assert.equal(await note.count(), 0, 'a pause of a second is no silence');
    await page.clock.runFor(6_000);
    await note.waitFor();
    const said = await note.textContent();
    assert.match(said, /Nothing from the model for [67] s/);
    assert.match(said, /writing a tool call/);
    assert.match(said, /Stop ends it; the model stays loaded/);
    await page.clock.runFor(30_000);
    assert.match(await note.textContent(), /for 3[67] s/, 'the count goes on');
    await page.clock.runFor(30_000);
    await note.waitFor({ state: 'detached' });
    await waitIdle(page);
  }));

test("Hearth's notice on an answer it ended is shown apart, never inside the answer's code block", () =>
  withApp('', async ({ page }) => {
    await send(page, 'runaway');
    await waitIdle(page);
    const answer = page.getByTestId('message-assistant').last();
    const notice = answer.getByTestId('answer-notice');
    await notice.waitFor();
    assert.equal(await notice.textContent(), 'Hearth ended this answer: the model was repeating the same text over and over.');
    const code = await answer.locator('pre').first().textContent();
    assert.ok(code.includes('again') && !code.includes('Hearth ended'), code);
  }));

test('a running answer says what the model is doing: loading, reading the prompt, writing a call, tokens so far', () =>
  withApp('', async ({ page }) => {
    await page.clock.install();
    // Paused: an installed clock otherwise also runs on with real time, and
    // a loaded machine's seconds between the steps below moved the script
    // past what they read (CI, 2026-12-08). Only runFor moves it now.
    const t0 = await page.evaluate(() => Date.now());
    await page.clock.pauseAt(t0 + 100);
    await send(page, 'slow start');
    // The script is timed from the run's start: the clock moves only once the
    // mock has started it. Pressing Enter returns before the page sends, and
    // a run started part way into the first second moved every later event
    // (the call's 200 characters came after the clock had stopped: CI,
    // 2026-12-08).
    await page.waitForFunction(() => [...window.__hearthMock.runs.values()].some((r) => !r.done), null, { timeout: 10_000 });
    const line = page.getByTestId('run-progress');
    await page.clock.runFor(3_000);
    await page.locator('[data-testid=run-progress][data-phase=loading]').waitFor();
    assert.match(await line.textContent(), /^Loading qwen2\.5-coder:0\.5b into memory · [23] s$/);
    await page.clock.runFor(20_000);
    await page.locator('[data-testid=run-progress][data-phase=reading]').waitFor();
    assert.match(await line.textContent(), /^Reading the prompt \(~2,340 tokens\) · \d s$/);
    await page.clock.runFor(10_000);
    await page.locator('[data-testid=run-progress][data-phase=calling]').waitFor();
    assert.match(await line.textContent(), /^Writing a call to run_shell · 0 characters/);
    await page.clock.runFor(2_500);
    await page.waitForFunction(() => document.querySelector('[data-testid=run-progress]')?.textContent?.includes('200 characters'), null, { timeout: 10_000 });
    await page.clock.runFor(2_000);
    await page.locator('[data-testid=run-progress][data-phase=writing]').waitFor();
    await page.clock.runFor(3_000);
    assert.match(await line.textContent(), /^Writing · ~6 tokens · [34] s · \d+\.\d tokens\/s$/);
    await page.clock.runFor(5_000);
    await line.waitFor({ state: 'detached' });
    await waitIdle(page);
  }));
