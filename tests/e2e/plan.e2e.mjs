// `/plan` in the real app: the phases stream into the workflow card, the
// plan waits until Run is clicked (the answer_plan command, allowed by
// the app's capabilities), the pass is carried out and the review's
// verdict closes it; the simulator saw the phases in order, the plan only
// after the findings and the implement pass only after the click.
// Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { appFor, cleanup, click, startSim } from './owned.mjs';
import { captureWindow, eventually, typeInto } from './support.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
  await cleanup();
});

const FINDINGS = '## Relevant files\n- greet.py: prints "Helo"';
const PLAN = '## Steps\n1. Fix the spelling in greet.py\n## Verify\n- python3 greet.py prints Hello';
const replies = [
  { when: 'You are exploring before any change', content: FINDINGS },
  { when: 'Write an implementation plan', content: PLAN },
  { when: 'Carry out this approved plan', content: 'Fixed the spelling: greet.py prints Hello.' },
  { when: 'Review finished work', content: 'Checked greet.py.\n{"verdict": "DONE"}' },
  { when: 'Write a title of at most 6 words', content: 'Fix the greeting' },
];

test('/plan runs its phases in the desktop app, waiting for the plan to be run', async () => {
  const url = await startSim([{ name: 'qwen3:8b', capabilities: ['completion', 'tools'] }], 0, replies);
  browser = await appFor(url);
  await typeInto(browser, '[data-testid="composer-input"]', '/plan fix the greeting');
  await click(browser, '[data-testid="send-button"]');
  const proposal = browser.$('[data-testid="plan-proposal"]');
  await proposal.waitForExist({ timeout: 30_000 });
  assert.match(await proposal.getText(), /Fix the spelling in greet\.py/);
  const asked = async () => (await (await fetch(`${url}/sim/requests`)).json())
    .filter((r) => r.path === '/api/chat')
    .map((r) => r.body?.messages?.filter((m) => m.role === 'user').at(-1)?.content ?? '');
  // Nothing is carried out before the click.
  assert.equal((await asked()).filter((c) => c.startsWith('Carry out this approved plan')).length, 0);
  await click(browser, '[data-testid="plan-run"]');
  await eventually(browser, 'the verdict', async () => browser.$('[data-testid="verdict"][data-verdict="done"]').isExisting());
  await eventually(browser, 'the run to end', async () => browser.$('[data-testid="send-button"]').isExisting());
  const phases = await browser.execute(() =>
    [...document.querySelectorAll('[data-testid="workflow-card"] [data-testid="phase"]')].map((e) => `${e.dataset.phase} ${e.dataset.status}`),
  );
  assert.deepEqual(phases, ['explore done', 'plan done', 'implement done', 'review done']);
  await eventually(browser, 'the pass answer', async () =>
    (await browser.$('[data-testid="message-assistant"]').getText()).includes('Fixed the spelling'),
  );
  const order = (await asked())
    .map((c) => ['You are exploring', 'Write an implementation plan', 'Carry out this approved plan', 'Review finished work'].findIndex((p) => c.startsWith(p)))
    .filter((i) => i >= 0);
  assert.deepEqual(order, [0, 1, 2, 3], 'the phases, in order');
  await captureWindow(browser, 'plan.png');
});
