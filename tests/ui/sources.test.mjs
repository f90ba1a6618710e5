// Sources under an answer (docs/knowledge.md, "Sources under an answer",
// "A chat without tools"): the passages an answer cites, each opening the
// passage as the index holds it now (as text; a changed file says so);
// a citation no passage backs and a quotation not in its source, flagged
// under the answer and, when whole, marked in its text; passages given and
// not cited, folded; only answers that drew on knowledge are asked about;
// a live answer's sources once it is stored; and the composer's Knowledge
// switch. `?sources=1` opens a chat with an answer of each kind
// (ui/src/mock/sources.ts), with /home/user/Notes read.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { calls, send, setup, waitIdle } from './harness.mjs';

const withApp = setup({ before, after });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const NOTES = '/home/user/Notes';
const PASSPORT = '[1] passport.md › Papers › Passport › Renewal · lines 3–9';
const INSTALL = '[2] install.md › Guide › Install › Debian · lines 12–30';
const ATTIC = '[3] attic-page.html › A downloaded page · lines 4–6';
const HOSTILE = 'The attic key is under the mat. <img src=x onerror="window.__knowledgeXss = 1"><script>window.__knowledgeXss = 2</script> <b>bold?</b>';

/** The answer row whose text holds `words`. */
const answer = (page, words) => page.getByTestId('message-assistant').filter({ hasText: words });
const labels = (l) => l.evaluateAll((els) => els.map((e) => e.textContent));

/** The seeded chat, open with its answers' sources read. */
async function openSeeded(page) {
  await page.getByTestId('session-title').filter({ hasText: 'Passport sources' }).waitFor();
  await answer(page, 'Renew it at the town hall').getByTestId('source').first().waitFor();
}

test("an answer's cited sources are listed with file, headings and lines; a click opens the passage, its markup shown as text", () =>
  withApp('sources=1', async ({ page }) => {
    await openSeeded(page);
    const row = answer(page, 'Renew it at the town hall');
    const list = row.getByTestId('answer-sources');
    assert.equal(await list.getAttribute('role'), 'group');
    assert.equal(await page.locator(`#${await list.getAttribute('aria-labelledby')}`).textContent(), 'Sources');
    // Cited only: [4] (bread) was given and not cited, so it is not listed.
    const sources = row.getByTestId('source');
    assert.deepEqual(await labels(sources), [PASSPORT, INSTALL, ATTIC]);
    assert.equal(await sources.first().getAttribute('title'), `${NOTES}/passport.md`);
    assert.equal(await sources.first().evaluate((b) => b.tagName), 'BUTTON');
    // Under the answer's text, before its footer.
    assert.equal(await row.evaluate((r) => {
      const kids = [...r.children];
      const at = kids.indexOf(r.querySelector('[data-testid=answer-sources]'));
      return at > kids.indexOf([...r.querySelectorAll(':scope > [data-testid=markdown]')].at(-1)) && at < kids.indexOf(r.querySelector('.answer-footer'));
    }), true);

    // The keyboard opens it; the passage's markup is text.
    await sources.nth(2).focus();
    await page.keyboard.press('Enter');
    const panel = page.getByTestId('passage-panel');
    const text = panel.getByTestId('passage-text');
    await text.waitFor();
    assert.equal(await panel.getAttribute('aria-label'), 'Source [3]');
    assert.equal(await panel.getByTestId('passage-path').textContent(), `${NOTES}/saved/attic-page.html`);
    assert.equal(await panel.getByTestId('passage-heading').textContent(), 'A downloaded page');
    assert.equal(await panel.getByTestId('passage-lines').textContent(), '4–6');
    assert.equal(await text.textContent(), HOSTILE);
    assert.equal(await text.evaluate((p) => p.children.length), 0);
    assert.equal(await panel.locator('img, script, b').count(), 0);
    assert.equal(await page.evaluate(() => window.__knowledgeXss), undefined);
    assert.deepEqual((await calls(page, 'knowledge_passage')).map((c) => c.args), [{ path: `${NOTES}/saved/attic-page.html`, startLine: 4, endLine: 6 }]);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'passage-panel', 'the panel takes the focus');

    // Esc closes it and gives the focus back to the source.
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), ATTIC);

    // Another source, by a click.
    await sources.first().click();
    await text.filter({ hasText: 'Renew the passport at the town hall' }).waitFor();
    assert.equal(await text.textContent(), 'Renew the passport at the town hall: bring the old one and two photos.\nIt takes three weeks.');
    await panel.getByTestId('panel-close').click();
    await panel.waitFor({ state: 'detached' });
  }));

test('a passage whose file changed since the answer says so', () =>
  withApp('sources=1', async ({ page }) => {
    await openSeeded(page);
    await page.evaluate((p) => (window.__hearthMock.knowledge.changed = [p]), `${NOTES}/guide/install.md`);
    await answer(page, 'Renew it at the town hall').getByTestId('source').nth(1).click();
    const panel = page.getByTestId('passage-panel');
    const changed = panel.getByTestId('passage-changed');
    await changed.waitFor();
    assert.equal(await changed.textContent(), 'This passage has changed since the answer: install.md has no passage at lines 12–30 any more.');
    assert.equal(await panel.getByTestId('passage-text').count(), 0);
    assert.equal(await panel.getByTestId('passage-path').textContent(), `${NOTES}/guide/install.md`);
  }));

test('a citation no passage has and quotations not in their source are flagged, and marked in the answer when whole; a true quotation is not', () =>
  withApp('sources=1', async ({ page }) => {
    await openSeeded(page);
    const row = answer(page, 'Renew it at the town hall');
    const warnings = row.getByTestId('source-warning');
    await warnings.first().waitFor();
    assert.deepEqual(await warnings.evaluateAll((els) => els.map((e) => [e.dataset.kind, e.textContent])), [
      ['unknown', 'Warning: [7] — no passage has this number: the citation is not backed by a source'],
      ['elsewhere', 'Warning: “takes three weeks” is not in [2]; it is in [1]'],
      ['not-found', 'Warning: “under the doormat” is not in [3] nor in any passage given: not from the sources'],
      ['not-found', 'Warning: “*kept* at the town hall” is not in [1] nor in any passage given: not from the sources'],
    ]);
    // Not by colour alone: an icon and words.
    assert.equal(await warnings.first().locator('svg').count(), 1);
    assert.equal(await row.getByTestId('answer-sources').getByText('bring the old one').count(), 0, 'the quotation that holds is not flagged');

    // Marked where they stand in the answer, once each; the one split by
    // emphasis is not (its warning says it), nor the one that holds.
    const marks = row.locator('[data-testid=markdown] mark.unverified');
    await marks.nth(1).waitFor();
    assert.deepEqual(await marks.evaluateAll((els) => els.map((m) => [m.textContent, m.title])), [
      ['takes three weeks', 'Not found in the cited source'],
      ['under the doormat', 'Not found in the cited source'],
    ]);
    assert.equal((await row.getByTestId('markdown').textContent()).trim(), 'Renew it at the town hall: "bring the old one and two photos" [1]. It "takes three weeks" [2]. The attic key is "under the doormat" [3]. It is "kept at the town hall" [1]. See also [7].');
    assert.equal(await row.locator('[data-testid=markdown] em').textContent(), 'kept');

    // A chat without tools: the passages came attached to the question; its true quotation is neither flagged nor marked.
    const plain = answer(page, 'It says');
    await plain.getByTestId('source').waitFor();
    assert.deepEqual(await labels(plain.getByTestId('source')), [PASSPORT]);
    assert.equal(await plain.getByTestId('source-warning').count(), 0);
    assert.equal(await plain.locator('mark').count(), 0);
    const question = page.getByTestId('message-user').filter({ hasText: 'Where is the passport renewed?' });
    assert.equal(await question.count(), 1);
    const chip = page.locator('.user-row').filter({ has: question }).getByTestId('attachment-name');
    assert.equal(await chip.textContent(), 'knowledge-passages.md');
  }));

test('an answer that cites none of its passages lists them folded, as given and not cited', () =>
  withApp('sources=1', async ({ page }) => {
    await openSeeded(page);
    const row = answer(page, 'I could not tell from your notes.');
    const given = row.getByTestId('sources-given');
    await given.waitFor();
    assert.equal(await given.locator('summary').textContent(), 'Given, not cited (2)');
    assert.equal(await given.evaluate((d) => d.open), false);
    assert.equal(await row.getByTestId('source').first().isVisible(), false);
    await given.locator('summary').click();
    await row.getByTestId('source').first().waitFor({ state: 'visible' });
    assert.deepEqual(await labels(row.getByTestId('source')), ['[1] bread.txt · line 1', INSTALL]);
    assert.equal(await row.getByTestId('source-warning').count(), 0);
    await row.getByTestId('source').first().click();
    await page.getByTestId('passage-text').filter({ hasText: 'Bread: 500 g flour' }).waitFor();
  }));

test('only answers that drew on knowledge are asked about, each once', () =>
  withApp('sources=1', async ({ page }) => {
    await openSeeded(page);
    await answer(page, 'I could not tell').getByTestId('sources-given').waitFor();
    await answer(page, 'It says').getByTestId('source').waitFor();
    const asked = await page.evaluate(() => {
      const m = window.__hearthMock;
      const s = [...m.sessions.values()].find((x) => x.title === 'Passport sources');
      return m.path(s).filter((x) => x.role === 'assistant' && x.content).map((x) => [x.id, x.content]);
    });
    const idOf = (start) => asked.find(([, c]) => c.startsWith(start))[0];
    const expected = [idOf('Renew it'), idOf('I could not'), idOf('It says')];
    const ids = async () => (await calls(page, 'answer_sources')).map((c) => c.args.messageId);
    assert.deepEqual((await ids()).sort(), [...expected].sort());
    assert.equal(await answer(page, 'You are welcome.').getByTestId('answer-sources').count(), 0, 'an answer that searched nothing');

    // Another chat and back: nothing is asked again.
    await page.getByTestId('session-item').filter({ hasText: 'Welcome' }).getByTestId('session-open').click();
    await page.getByTestId('session-title').filter({ hasText: 'Welcome' }).waitFor();
    await page.getByTestId('session-item').filter({ hasText: 'Passport sources' }).getByTestId('session-open').click();
    await openSeeded(page);
    assert.equal((await ids()).length, 3);
  }));

test('a chat without knowledge asks nothing about its answers', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('message-assistant').first().waitFor();
    await send(page, 'hello');
    await waitIdle(page);
    await page.getByTestId('message-assistant').nth(1).waitFor();
    assert.equal((await calls(page, 'answer_sources')).length, 0);
    assert.equal(await page.getByTestId('answer-sources').count(), 0);
  }));

test("a live answer that searched the notes shows its sources once it is stored", () =>
  withApp('sources=1', async ({ page }) => {
    await openSeeded(page);
    await page.getByTestId('new-session').click();
    await page.getByTestId('transcript-empty').waitFor();
    await send(page, 'search my notes for passport');
    await waitIdle(page);
    const row = answer(page, 'Your notes say');
    await row.getByTestId('source').waitFor();
    assert.deepEqual(await labels(row.getByTestId('source')), [PASSPORT]);
    assert.equal(await row.getByTestId('source-warning').count(), 0, 'its quotation holds');
    const stored = await page.evaluate(() => [...window.__hearthMock.messages.values()].filter((m) => m.content.startsWith('Your notes say')).map((m) => m.id));
    assert.deepEqual((await calls(page, 'answer_sources')).filter((c) => stored.includes(c.args.messageId)).length, 1);
  }));

test('the Knowledge switch is hidden without a knowledge folder and comes with the first', () =>
  withApp('', async ({ page }) => {
    await page.getByTestId('composer-input').waitFor();
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'knowledge_status'));
    assert.equal(await page.getByTestId('knowledge-switch').count(), 0);
    await page.getByTestId('open-settings').click();
    await page.evaluate((p) => window.__hearthMock.dialogs.answers.push({ path: p }), NOTES);
    await page.getByTestId('knowledge-add').click();
    await page.locator(`[data-testid=knowledge-folder][data-path="${NOTES}"]`).waitFor();
    await page.getByTestId('panel-close').click();
    const sw = page.getByTestId('knowledge-switch');
    await sw.waitFor();
    assert.equal(await sw.getAttribute('aria-pressed'), 'false');
  }));

test('the Knowledge switch turns on for a new chat before its first message, is kept with the chat, and its messages carry the passages', () =>
  withApp('sources=1', async ({ page }) => {
    await openSeeded(page);
    const sw = page.getByTestId('knowledge-switch');
    await sw.waitFor();
    assert.equal(await sw.getAttribute('title'), 'Send the best passages of your knowledge folders with each message (for a profile without tools)');
    assert.equal(await sw.textContent(), 'Knowledge');
    await page.getByTestId('new-session').click();
    await page.getByTestId('transcript-empty').waitFor();
    const fresh = await page.evaluate(() => [...window.__hearthMock.sessions.values()].at(-1).id);
    assert.equal(await sw.getAttribute('aria-pressed'), 'false');
    await sw.click();
    await page.locator('[data-testid=knowledge-switch][aria-pressed=true]').waitFor();
    assert.deepEqual((await calls(page, 'set_session_knowledge')).map((c) => c.args), [{ sessionId: fresh, on: true }]);

    // Another chat has its own; back here, it is still on.
    await page.getByTestId('session-item').filter({ hasText: 'Passport sources' }).getByTestId('session-open').click();
    await page.getByTestId('session-title').filter({ hasText: 'Passport sources' }).waitFor();
    await page.locator('[data-testid=knowledge-switch][aria-pressed=false]').waitFor();
    await page.locator(`[data-testid=session-item][data-session-id="${fresh}"] [data-testid=session-open]`).click();
    await page.locator('[data-testid=knowledge-switch][aria-pressed=true]').waitFor();
    // Whether a folder exists is read with each chat opened (a project's dialog may add or remove one), not after each answer.
    const reads = (await calls(page, 'knowledge_status')).length;

    // A message sent carries the passages as a file; the answer cites them.
    await send(page, 'passport');
    await waitIdle(page);
    const row = answer(page, 'From your notes');
    await row.getByTestId('source').waitFor();
    assert.deepEqual(await labels(row.getByTestId('source')), [PASSPORT]);
    assert.equal(await row.getByTestId('source-warning').count(), 0);
    const asked = page.locator('.user-row').filter({ has: page.getByTestId('message-user').filter({ hasText: 'passport' }) });
    await asked.getByTestId('attachment-name').filter({ hasText: 'knowledge-passages.md' }).waitFor();
    const file = await page.evaluate(() => {
      const m = window.__hearthMock;
      const q = [...m.messages.values()].find((x) => x.role === 'user' && x.content === 'passport');
      return m.files.text(q.attachments[0].sha256);
    });
    assert.match(file, /^Passages from the user's knowledge folders .*\n\n\[1\] \/home\/user\/Notes\/passport\.md, lines 3–9 \(Papers › Passport › Renewal\)\nRenew the passport/);

    assert.equal((await calls(page, 'knowledge_status')).length, reads, 'an answer reads nothing more');

    // Off again.
    await sw.click();
    await page.locator('[data-testid=knowledge-switch][aria-pressed=false]').waitFor();
    assert.deepEqual((await calls(page, 'set_session_knowledge')).map((c) => c.args.on), [true, false]);
  }));

for (const theme of ['light', 'dark']) {
  test(`axe finds nothing serious in answers with sources, warnings, marks and a passage open (${theme} theme)`, () =>
    withApp('sources=1', async ({ page }) => {
      await openSeeded(page);
      await page.getByTestId('open-settings').click();
      await page.getByTestId(`theme-${theme}`).click();
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      await page.getByTestId('panel-close').click();
      await answer(page, 'I could not tell').getByTestId('sources-given').locator('summary').click();
      await answer(page, 'Renew it at the town hall').locator('mark.unverified').first().waitFor();
      await answer(page, 'Renew it at the town hall').getByTestId('source').nth(2).click();
      await page.getByTestId('passage-text').waitFor();
      await page.evaluate(axeSource);
      const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      const found = r.violations.filter((v) => v.impact !== 'minor').map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}: ${v.nodes[0]?.failureSummary ?? ''}`);
      assert.deepEqual(found, []);
    }));
}
