// Two machines in the real app: a second simulator added as host `gpu2`
// in Settings (checked at once), both hosts in the models panel, the
// picker moving the session to gpu2's model (the answer comes from gpu2
// and says so), and a profile whose host is off failing over to this
// machine before any output, the answer saying which host answered.
// Run through tests/e2e/run.sh.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { answered, appFor, cleanup, click, freePort, startSim, toast } from './owned.mjs';
import { captureWindow, eventually } from './support.mjs';

/** @type {import('webdriverio').Browser | undefined} */
let browser;

after(async () => {
  await browser?.deleteSession();
  await cleanup();
});

async function stats(url) {
  return (await fetch(`${url}/sim/stats`)).json();
}

/** Types `value` into the field `testid` once it can take it, and waits until it holds it. */
async function fill(testid, value) {
  const field = browser.$(`[data-testid="${testid}"]`);
  await field.waitForClickable({ timeout: 30_000 });
  // Under load the panel may still be sliding in when the first keys go:
  // typed again until the field holds exactly what was meant.
  await eventually(browser, `${testid} holds ${value}`, async () => {
    await field.setValue(value);
    return (await field.getValue()) === value;
  });
}

async function addHost(name, url) {
  await fill('host-name', name);
  await fill('host-url', url);
  await click(browser, '[data-testid="host-add"] button[type="submit"]');
  await browser.$(`[data-testid="host-item"][data-host="${name}"]`).waitForExist({ timeout: 20_000 });
}

async function hostState(name) {
  return browser.$(`[data-testid="host-item"][data-host="${name}"] [data-testid="host-state"]`).getText();
}

test('a second machine: added in Settings, shown in Models, picked in the picker; a host that is off fails over before any output', async () => {
  const home = await startSim([{ name: 'qwen2.5:7b', capabilities: ['completion', 'tools'] }]);
  const gpu2 = await startSim([{ name: 'gemma3:12b', capabilities: ['completion', 'tools'] }]);
  browser = await appFor(home);
  assert.equal(await answered(browser, 'hello'), 'qwen2.5:7b');

  await click(browser, '[data-testid="open-settings"]');
  await addHost('gpu2', gpu2);
  assert.match(await hostState('gpu2'), /^Up \(version .+\) · 1 model$/);
  // Nothing listens on this port: a machine that is off.
  await addHost('attic', `http://127.0.0.1:${await freePort()}`);
  assert.match(await hostState('attic'), /^Not reachable/);
  await click(browser, '[data-testid="panel-close"]');

  await click(browser, '[data-testid="open-models"]');
  const shown = '[data-testid="models-hosts"] [data-testid="host-item"][data-host="gpu2"] [data-testid="host-models"]';
  await browser.$(shown).waitForExist({ timeout: 20_000 });
  assert.equal(await browser.$(shown).getText(), 'gemma3:12b');
  assert.ok(await browser.$('[data-testid="models-hosts"] [data-host="ollama"]').isExisting());
  await captureWindow(browser, 'hosts-models.png');
  await click(browser, '[data-testid="panel-close"]');

  // The picker moves the session to gpu2; the answer comes from there.
  const before = (await stats(gpu2)).chat_requests;
  await click(browser, '[data-testid="model-picker"]');
  await click(browser, '[data-testid="model-option"][data-host="gpu2"][data-model="gemma3:12b"]');
  assert.equal(await answered(browser, 'and on gpu2?'), 'gemma3:12b');
  assert.ok((await stats(gpu2)).chat_requests > before, 'gpu2 answered');
  assert.equal((await browser.$('[data-testid="current-host"]').getText()).trim(), 'on gpu2');

  // Chat now runs on attic, failing over to this machine; a new session
  // starts on attic, which is off.
  await click(browser, '[data-testid="open-profiles"]');
  await click(browser, '[data-testid="profile-item"][data-profile="Chat"] [data-testid="profile-edit"]');
  await browser.$('[data-testid="profile-host"] option[value="attic"]').waitForExist({ timeout: 20_000 });
  await browser.$('[data-testid="profile-host"]').selectByAttribute('value', 'attic');
  await click(browser, '[data-testid="failover-choice"][data-host="ollama"]');
  await click(browser, '[data-testid="profile-save"]');
  await toast(browser, 'Saved profile Chat');
  await click(browser, '[data-testid="panel-close"]');
  await click(browser, '[data-testid="new-session"]');
  await eventually(browser, 'the new session', async () => (await browser.$$('[data-testid="message-assistant"]')).length === 0);
  assert.equal(await answered(browser, 'is attic on?'), 'qwen2.5:7b');
  const notice = browser.$('[data-testid="host-failover"]');
  await eventually(browser, 'the failover notice', () => notice.isExisting());
  assert.match(await notice.getText(), /attic could not be reached, so ollama answered/);
  await captureWindow(browser, 'hosts-failover.png');
});
