// Knowledge folders in Settings (docs/knowledge.md): a folder added
// through the folder dialog is read in the background, with its progress
// read every half second while the sync runs (and never otherwise), then
// counted; the embedding model; the files left out and why; a search whose
// passages are the user's files shown as text; a folder is not removed
// while a sync runs; the folders watched for changes, those that cannot be
// and why; a project's own folder. The mock's sync goes a step further at each
// `knowledge_status`; `knowledge.hold` keeps it where it is, and
// `knowledge.step()` moves it by hand (ui/src/mock/knowledge.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { calls, setup } from './harness.mjs';

const withApp = setup({ before, after });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const NOTES = '/home/user/Notes';

async function openKnowledge(page) {
  await page.getByTestId('open-settings').click();
  const k = page.getByTestId('knowledge');
  await k.waitFor();
  await k.locator('[data-testid=knowledge-folders][aria-busy=false]').waitFor({ state: 'attached' });
  return k;
}

/** The folder dialog answers `path` (null: cancelled), then Add folder… is clicked. */
async function pick(page, k, path) {
  await page.evaluate((p) => window.__hearthMock.dialogs.answers.push(p === null ? null : { path: p }), path);
  await k.getByTestId('knowledge-add').click();
}

const mock = (page, f, arg) => page.evaluate(f, arg);
const hold = (page, on) => mock(page, (v) => (window.__hearthMock.knowledge.hold = v), on);
const step = (page) => mock(page, () => window.__hearthMock.knowledge.step());
const folder = (k, path) => k.locator(`[data-testid=knowledge-folder][data-path="${path}"]`);
const text = async (l) => (await l.innerText()).replace(/\s+/g, ' ').trim();

/** Adds a folder through the dialog and waits for its first sync to end. */
async function addAndSync(page, k, path) {
  await pick(page, k, path);
  // The row comes with the view that says the sync runs; Sync now is back when it ends.
  await folder(k, path).waitFor();
  await k.getByTestId('knowledge-sync').waitFor();
}

test('a folder added through the dialog is read with its progress shown, then counted; a cancelled dialog adds nothing', () =>
  withApp('', async ({ page }) => {
    const k = await openKnowledge(page);
    await k.getByTestId('knowledge-empty').waitFor();
    assert.equal(await k.getByTestId('knowledge-sync').isDisabled(), true, 'nothing to sync yet');

    await pick(page, k, null);
    await page.waitForFunction(() => window.__hearthMock.dialogs.asked.filter((d) => d.kind === 'folder').length === 1);
    await page.waitForFunction(() => !document.querySelector('[data-testid=knowledge-add]').disabled);
    assert.equal((await calls(page, 'knowledge_add_folder')).length, 0);
    assert.equal(await k.getByTestId('knowledge-folder').count(), 0);
    await k.getByTestId('knowledge-empty').waitFor();

    await hold(page, true);
    await pick(page, k, NOTES);
    await folder(k, NOTES).waitFor();
    assert.deepEqual((await calls(page, 'knowledge_add_folder')).map((c) => c.args.path), [NOTES]);
    const progress = k.getByTestId('knowledge-progress');
    await progress.filter({ hasText: 'Reading… 0 files, 0 changed' }).waitFor();
    await k.getByTestId('knowledge-stop').waitFor();
    assert.equal(await k.getByTestId('knowledge-sync').count(), 0);
    await step(page);
    await progress.filter({ hasText: 'Reading… 5 files, 5 changed' }).waitFor();
    // Big numbers are grouped.
    await mock(page, () => Object.assign(window.__hearthMock.knowledge.sync, { seen: 1234, read: 56 }));
    await progress.filter({ hasText: 'Reading… 1,234 files, 56 changed' }).waitFor();
    await mock(page, () => Object.assign(window.__hearthMock.knowledge.sync, { seen: 5, read: 5 }));
    assert.equal(await progress.getAttribute('data-phase'), 'reading');

    await hold(page, false);
    const last = k.getByTestId('knowledge-last');
    await last.waitFor();
    assert.equal(await last.textContent(), '10 files read, 0 unchanged, 2 left out, 0 gone. No embedding model is chosen: search is by words.');
    assert.equal(await progress.count(), 0);
    assert.equal(await k.getByTestId('knowledge-stop').count(), 0);
    assert.equal(await text(folder(k, NOTES).getByTestId('knowledge-folder-counts')), '12 files · 38 passages · 0 embedded · 2 left out');
    assert.equal(await folder(k, NOTES).getAttribute('data-status'), 'ready');
    assert.equal(await folder(k, NOTES).getByTestId('knowledge-folder-state').count(), 0, 'a ready folder says nothing more');
    assert.equal(await k.getByTestId('knowledge-empty').count(), 0);

    // Sync now reads it again: nothing changed.
    await k.getByTestId('knowledge-sync').click();
    await last.filter({ hasText: '0 files read, 10 unchanged' }).waitFor();
    assert.equal((await calls(page, 'knowledge_sync')).length, 1);
  }));

test('an embedding model makes the sync embed; search shows where each passage is and how it was found', () =>
  withApp('', async ({ page }) => {
    const k = await openKnowledge(page);
    const hint = k.getByTestId('knowledge-model-hint');
    assert.match(await text(hint), /Without an embedding model, search is by words only\..*nomic-embed-text.*all-minilm.*Memory then uses it as well/);
    await addAndSync(page, k, NOTES);

    await hold(page, true);
    const field = k.getByTestId('knowledge-model');
    await field.fill('nomic-embed-text');
    await k.getByTestId('knowledge-model-save').click();
    const progress = k.getByTestId('knowledge-progress');
    await progress.waitFor();
    assert.deepEqual((await calls(page, 'knowledge_set_model')).map((c) => c.args.model), ['nomic-embed-text']);
    for (let i = 0; i < 4; i++) await step(page);
    await k.locator('[data-testid=knowledge-progress][data-phase=embedding]').filter({ hasText: 'Embedding… 0 of 38 passages' }).waitFor();
    await step(page);
    await progress.filter({ hasText: 'Embedding… 16 of 38 passages' }).waitFor();
    await hold(page, false);
    const last = k.getByTestId('knowledge-last');
    await last.waitFor();
    assert.equal(await last.textContent(), '0 files read, 10 unchanged, 0 left out, 0 gone; 38 passages embedded');
    assert.equal(await text(folder(k, NOTES).getByTestId('knowledge-folder-counts')), '12 files · 38 passages · 38 embedded · 2 left out');
    assert.equal(await field.inputValue(), 'nomic-embed-text');
    assert.equal(await k.getByTestId('knowledge-model-save').isDisabled(), true, 'nothing to save');
    assert.match(await text(hint), /by their meaning\. Memory uses it too/);

    const input = k.getByTestId('knowledge-search-input');
    await input.fill('passport');
    await input.press('Enter');
    const hit = k.getByTestId('knowledge-hit');
    await hit.first().waitFor();
    assert.equal(await hit.count(), 1);
    assert.equal(await hit.getByTestId('knowledge-hit-where').textContent(), `${NOTES}/passport.md:3–9`);
    assert.equal(await hit.getByTestId('knowledge-hit-heading').textContent(), 'Papers › Passport › Renewal');
    assert.equal(await hit.getByTestId('knowledge-hit-text').textContent(), 'Renew the passport at the town hall: bring the old one and two photos.\nIt takes three weeks.');
    assert.equal(await hit.getByTestId('knowledge-hit-found').textContent(), '· found by words and meaning');
    assert.deepEqual((await calls(page, 'knowledge_search')).map((c) => c.args.query), ['passport']);

    // By meaning alone; a one-line passage without headings; nothing.
    await input.fill('travel');
    await k.getByTestId('knowledge-search').click();
    await hit.getByTestId('knowledge-hit-found').filter({ hasText: '· found by meaning' }).waitFor();
    await input.fill('FLOUR');
    await input.press('Enter');
    await hit.filter({ hasText: 'recipes/bread.txt:1' }).waitFor();
    assert.equal(await hit.getByTestId('knowledge-hit-where').textContent(), `${NOTES}/recipes/bread.txt:1`);
    assert.equal(await hit.getByTestId('knowledge-hit-heading').count(), 0);
    await input.fill('zebra');
    await input.press('Enter');
    await k.getByTestId('knowledge-no-hits').filter({ hasText: 'No passage found for “zebra”.' }).waitFor();
    assert.equal(await hit.count(), 0);

    // Another model: the panel says everything is embedded again, and the sync says it was.
    await hold(page, true);
    await field.fill('all-minilm');
    await k.getByTestId('knowledge-model-save').click();
    const change = k.getByTestId('knowledge-model-change');
    await change.waitFor();
    assert.equal(await text(change), "The passages' vectors were made by nomic-embed-text: the next sync embeds every passage again with all-minilm.");
    await hold(page, false);
    await last.filter({ hasText: '38 passages embedded (the vectors of nomic-embed-text were replaced)' }).waitFor();
    await change.waitFor({ state: 'detached' });

    // Blank: no model, search by words only (and no sync started).
    const syncs = (await calls(page, 'knowledge_status')).length;
    await field.fill('');
    await k.getByTestId('knowledge-model-save').click();
    await hint.filter({ hasText: 'Without an embedding model, search is by words only.' }).waitFor();
    assert.equal((await calls(page, 'knowledge_set_model')).at(-1).args.model, '');
    await change.filter({ hasText: 'made by all-minilm, are kept but not used' }).waitFor();
    assert.equal(await progress.count(), 0);
    assert.equal((await calls(page, 'knowledge_status')).length, syncs, 'no sync, so no polling');
    await input.fill('passport');
    await input.press('Enter');
    await hit.getByTestId('knowledge-hit-found').filter({ hasText: '· found by words' }).waitFor();
  }));

test("a passage's text is shown as text: markup in a file creates no element", () =>
  withApp('', async ({ page }) => {
    const k = await openKnowledge(page);
    await addAndSync(page, k, NOTES);
    const input = k.getByTestId('knowledge-search-input');
    await input.fill('attic');
    await input.press('Enter');
    const hit = k.locator('[data-testid=knowledge-hit]');
    await hit.first().waitFor();
    assert.equal(await hit.getByTestId('knowledge-hit-where').textContent(), `${NOTES}/saved/attic-page.html:4–6`);
    const passage = hit.getByTestId('knowledge-hit-text');
    assert.equal(await passage.textContent(), 'The attic key is under the mat. <img src=x onerror="window.__knowledgeXss = 1"><script>window.__knowledgeXss = 2</script> <b>bold?</b>');
    assert.equal(await passage.evaluate((p) => p.children.length), 0);
    assert.equal(await k.locator('[data-testid=knowledge-hits] img, [data-testid=knowledge-hits] script, [data-testid=knowledge-hits] b').count(), 0);
    assert.equal(await page.evaluate(() => window.__knowledgeXss), undefined);
  }));

test('a folder is not removed while a sync runs (the page says why); after it, Remove forgets it once confirmed', () =>
  withApp('', async ({ page }) => {
    const k = await openKnowledge(page);
    await hold(page, true);
    await pick(page, k, NOTES);
    await k.getByTestId('knowledge-progress').waitFor();
    const remove = folder(k, NOTES).getByTestId('knowledge-remove');
    assert.equal(await remove.isDisabled(), true);
    assert.equal(await remove.getAttribute('title'), 'A sync is going on: stop it first, then remove the folder.');
    await hold(page, false);
    await k.getByTestId('knowledge-last').waitFor();
    assert.equal(await remove.isDisabled(), false);

    // A sync the page has not heard of yet: the shell refuses, the page
    // says why and reads the sync, whose Stop then ends it.
    await mock(page, () => {
      window.__hearthMock.knowledge.hold = true;
      window.__hearthMock.knowledge.start();
    });
    await remove.click();
    await folder(k, NOTES).getByTestId('knowledge-remove-yes').click();
    await page.getByTestId('toast-text').filter({ hasText: 'a sync is going on: stop it first, then remove the folder' }).waitFor();
    await k.getByTestId('knowledge-progress').waitFor();
    assert.equal(await remove.isDisabled(), true);
    assert.equal(await folder(k, NOTES).count(), 1);
    await k.getByTestId('knowledge-stop').click();
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'knowledge_stop_sync'));
    await hold(page, false);
    await k.getByTestId('knowledge-last').filter({ hasText: /^Stopped: .*the next sync goes on from there\.$/ }).waitFor();

    // Asked first; Cancel keeps it.
    await remove.click();
    const confirm = folder(k, NOTES).getByTestId('knowledge-remove-confirm');
    assert.match(await text(confirm), /Forget \/home\/user\/Notes\? Its files stay\./);
    await folder(k, NOTES).getByTestId('knowledge-remove-no').click();
    await confirm.waitFor({ state: 'detached' });
    await remove.click();
    await folder(k, NOTES).getByTestId('knowledge-remove-yes').click();
    await folder(k, NOTES).waitFor({ state: 'detached' });
    await k.getByTestId('knowledge-empty').waitFor();
    assert.deepEqual((await calls(page, 'knowledge_remove_folder')).map((c) => c.args.path), [NOTES, NOTES]);
  }));

test('the files left out are listed with why; a folder that is not there says so', () =>
  withApp('', async ({ page }) => {
    const k = await openKnowledge(page);
    await addAndSync(page, k, NOTES);
    const toggle = folder(k, NOTES).getByTestId('knowledge-left-out');
    assert.equal(await toggle.textContent(), '2 left out');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    const items = folder(k, NOTES).getByTestId('knowledge-left-out-item');
    await items.first().waitFor();
    assert.deepEqual(await items.evaluateAll((els) => els.map((e) => e.textContent.replace(/\s+/g, ' '))), ['photos/cat.jpg — not a text file', 'video/talk.mp4 — larger than 16 MB']);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    const list = folder(k, NOTES).getByTestId('knowledge-left-out-list');
    assert.equal(await list.getAttribute('id'), await toggle.getAttribute('aria-controls'));
    assert.deepEqual((await calls(page, 'knowledge_skipped')).map((c) => c.args.path), [NOTES]);
    await toggle.click();
    await list.waitFor({ state: 'detached' });

    const gone = '/media/usb-missing/docs';
    await addAndSync(page, k, gone);
    const missing = folder(k, gone);
    assert.equal(await missing.getAttribute('data-status'), 'missing');
    const state = missing.getByTestId('knowledge-folder-state');
    assert.match(await state.textContent(), /^Missing: the folder is not there \(moved, deleted, or a drive not mounted\)/);
    assert.equal(await state.evaluate((e) => e.classList.contains('danger-text')), true);
    assert.equal(await text(missing.getByTestId('knowledge-folder-counts')), '0 files · 0 passages · 0 embedded · 0 left out');
    assert.equal(await missing.getByTestId('knowledge-left-out').count(), 0, 'nothing to list');
    // The folders are listed by path.
    assert.deepEqual(await k.getByTestId('knowledge-folder').evaluateAll((els) => els.map((e) => e.dataset.path)), [NOTES, gone]);
  }));

test('a sync that fails says why, as an error, and the next one clears it', () =>
  withApp('', async ({ page }) => {
    const k = await openKnowledge(page);
    await addAndSync(page, k, NOTES);
    await mock(page, () => (window.__hearthMock.knowledge.embedError = 'connection refused'));
    await k.getByTestId('knowledge-model').fill('nomic-embed-text');
    await k.getByTestId('knowledge-model-save').click();
    const error = k.getByTestId('knowledge-error');
    await error.waitFor();
    assert.equal(await error.textContent(), 'the embedding model `nomic-embed-text` did not answer: connection refused. Search by words still works.');
    assert.equal(await error.evaluate((e) => e.classList.contains('danger-text')), true);
    assert.equal(await k.getByTestId('knowledge-last').count(), 0);
    assert.equal(await text(folder(k, NOTES).getByTestId('knowledge-folder-counts')), '12 files · 38 passages · 0 embedded · 2 left out');
    await mock(page, () => (window.__hearthMock.knowledge.embedError = null));
    await k.getByTestId('knowledge-sync').click();
    await k.getByTestId('knowledge-last').filter({ hasText: '38 passages embedded' }).waitFor();
    assert.equal(await error.count(), 0);
  }));

test('the sync is read every half second while it runs, and not when none runs or the panel is closed', () =>
  withApp('', async ({ page }) => {
    await page.clock.install();
    const count = async () => (await calls(page, 'knowledge_status')).length;
    // Read once when the page starts (the composer's Knowledge switch shows while a folder exists).
    await page.waitForFunction(() => window.__hearthMock.calls.some((c) => c.cmd === 'knowledge_status'));
    const atStart = await count();
    assert.equal(atStart, 1, 'read once when the page starts');
    const k = await openKnowledge(page);
    await k.getByTestId('knowledge-empty').waitFor();
    const t = await page.evaluate(() => Date.now());
    await page.clock.pauseAt(t + 1_000);
    const idle = await count();
    assert.equal(idle, atStart + 1, 'read once when the section opens');
    await page.clock.runFor(5_000);
    assert.equal(await count(), idle, 'no sync: no reading');

    await hold(page, true);
    await pick(page, k, NOTES);
    await k.getByTestId('knowledge-progress').waitFor();
    const running = await count();
    for (let i = 1; i <= 3; i++) {
      await page.clock.runFor(500);
      assert.equal(await count(), running + i, `reading ${i}`);
    }

    // Closed while the sync runs: no more readings; opened again, it goes on.
    await page.getByTestId('panel-close').click();
    await k.waitFor({ state: 'detached' });
    const closed = await count();
    await page.clock.runFor(5_000);
    assert.equal(await count(), closed, 'a closed panel reads nothing');
    await page.getByTestId('open-settings').click();
    await k.getByTestId('knowledge-progress').waitFor();
    assert.equal(await count(), closed + 1);

    // The sync ends: the readings stop.
    await hold(page, false);
    for (let i = 0; i < 10 && (await k.getByTestId('knowledge-last').count()) === 0; i++) await page.clock.runFor(500);
    await k.getByTestId('knowledge-last').waitFor();
    const done = await count();
    await page.clock.runFor(5_000);
    assert.equal(await count(), done, 'no sync: no reading');
  }));

test("the folders watched for changes are counted, and each that cannot be is named with why; a project's own folder shows its name", () =>
  withApp('', async ({ page }) => {
    // A project with a folder of its own, made before the section opens.
    await mock(page, () => {
      const m = window.__hearthMock;
      const p = m.projects.create({ name: 'Taxes 2026', workspace: null, profile: null, model: null, instructions: '' });
      m.knowledge.seedRead('/home/user/Taxes', p.id);
      m.knowledge.watchLimit = 2;
    });
    const k = await openKnowledge(page);
    const watching = k.getByTestId('knowledge-watching');
    await watching.waitFor();
    assert.equal(await text(watching), 'Watching 1 folder for changes: a change is read a moment after it.');
    assert.equal(await k.getByTestId('knowledge-unwatched').count(), 0);
    const badge = folder(k, '/home/user/Taxes').getByTestId('knowledge-folder-project');
    await badge.filter({ hasText: 'Taxes 2026' }).waitFor();
    assert.equal(await badge.getAttribute('title'), "Searched by this project's chats only");
    assert.equal(await k.getByTestId('knowledge-add').getAttribute('title'), "A folder for every chat (a project's own folders are added in its dialog)");

    // Added here: for every chat (no project), and watched.
    await addAndSync(page, k, NOTES);
    assert.equal((await calls(page, 'knowledge_add_folder')).at(-1).args.project, null);
    assert.equal(await folder(k, NOTES).getByTestId('knowledge-folder-project').count(), 0);
    await watching.filter({ hasText: 'Watching 2 folders for changes' }).waitFor();

    // Past the system's limit of watches, and a folder that is not there: named, with why, as a warning.
    await hold(page, true);
    await pick(page, k, '/home/user/Zines');
    await folder(k, '/home/user/Zines').waitFor();
    await pick(page, k, '/media/usb-missing/docs');
    const unwatched = k.getByTestId('knowledge-unwatched');
    await unwatched.getByTestId('knowledge-unwatched-item').nth(1).waitFor();
    assert.equal(await unwatched.evaluate((e) => e.classList.contains('warning')), true);
    assert.equal(await unwatched.locator('svg').count(), 1, 'an icon, not a colour alone');
    assert.match(await text(unwatched), /^Not watched: their changes are read at the next sync\./);
    assert.deepEqual(await unwatched.getByTestId('knowledge-unwatched-item').evaluateAll((els) => els.map((e) => e.textContent)), [
      '/home/user/Zines: the system\'s limit of watched folders is reached (raise fs.inotify.max_user_watches); its changes are read at the next sync',
      '/media/usb-missing/docs: the folder is not there',
    ]);
    assert.equal(await text(watching), 'Watching 2 folders for changes: a change is read a moment after it.');
    // Read missing, it is no longer watched for (its state says why).
    await hold(page, false);
    await k.getByTestId('knowledge-last').waitFor();
    await unwatched.getByTestId('knowledge-unwatched-item').nth(1).waitFor({ state: 'detached' });
    assert.deepEqual(await unwatched.getByTestId('knowledge-unwatched-item').evaluateAll((els) => els.map((e) => e.textContent.split(':')[0])), ['/home/user/Zines']);

    // None watched: nothing said.
    await mock(page, () => (window.__hearthMock.knowledge.watchLimit = 0));
    await k.getByTestId('knowledge-sync').click();
    await k.getByTestId('knowledge-last').waitFor();
    await watching.waitFor({ state: 'detached' });
  }));

for (const theme of ['light', 'dark']) {
  test(`axe finds nothing serious in the section with folders, a sync running, files left out and passages (${theme} theme)`, () =>
    withApp('', async ({ page }) => {
      await page.getByTestId('open-settings').click();
      await page.getByTestId(`theme-${theme}`).click();
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      // A project's folder (its badge), watched; the next one past the limit of watches (a warning).
      await mock(page, () => {
        const m = window.__hearthMock;
        m.knowledge.seedRead('/home/user/Taxes', m.projects.create({ name: 'Taxes', workspace: null, profile: null, model: null, instructions: '' }).id);
        m.knowledge.watchLimit = 1;
      });
      const k = page.getByTestId('knowledge');
      await addAndSync(page, k, NOTES);
      await addAndSync(page, k, '/media/usb-missing/docs');
      await k.getByTestId('knowledge-watching').waitFor();
      await k.getByTestId('knowledge-unwatched').waitFor();
      await k.getByTestId('knowledge-folder-project').filter({ hasText: 'Taxes' }).waitFor();
      await folder(k, NOTES).getByTestId('knowledge-left-out').click();
      await folder(k, NOTES).getByTestId('knowledge-left-out-item').first().waitFor();
      const input = k.getByTestId('knowledge-search-input');
      await input.fill('attic passport');
      await input.press('Enter');
      await k.getByTestId('knowledge-hit').nth(1).waitFor();
      await hold(page, true);
      await k.getByTestId('knowledge-model').fill('all-minilm');
      await k.getByTestId('knowledge-model-save').click();
      await k.getByTestId('knowledge-progress').waitFor();
      await page.evaluate(axeSource);
      const r = await page.evaluate(() => window.axe.run(document.querySelector('[data-testid=knowledge]'), { resultTypes: ['violations'] }));
      const found = r.violations.filter((v) => v.impact !== 'minor').map((v) => `${v.impact} ${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
      assert.deepEqual(found, []);
      await hold(page, false);
      await k.getByTestId('knowledge-last').waitFor();
    }));
}
