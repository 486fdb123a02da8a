/**
 * The Routes page: an admin creates a route of two targets and orders them; a throttle on the first
 * target (the emulator's fault) makes a call through the route fall over, and the page shows the
 * first target's cooldown counting down, read again while it is open. The Chat page then talks to the
 * route, and its reply names the resource that answered.
 */
import { ADMIN, CONSOLE, api, apiToken, browserPerFile, chooseOption, mainNav, startConversation, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });
/** A hosted model no other test file calls, so that its fault throttles this file's call only. */
const THROTTLED = 'mistralai/mixtral-8x7b-instruct-v0.1';
const first = unique('rt-mixtral');
const second = unique('rt-llama');
const name = unique('console-route');
let key: string;

beforeAll(async () => {
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const deploy = (modelId: string, endpointName: string) =>
    api('POST', '/api/deploy/hosted', { token, body: { modelId, endpointName, dryRun: false } });
  await Promise.all([deploy(THROTTLED, first), deploy('meta/llama-3.1-8b-instruct', second)]);
  key = (await api<{ key: string }>('POST', '/api/keys', { token, body: { name: unique('routes-page') } })).key;
}, 60_000);

test('an admin creates a route of two targets, orders them, and watches the first cool down after it throttled', async () => {
  const { page } = b;
  await mainNav(page).getByRole('link', { name: 'Routes' }).click();
  await page.getByRole('button', { name: 'New route' }).click();
  const form = page.getByRole('form', { name: 'New route' });
  await form.getByLabel('Name', { exact: true }).fill(name);
  const add = form.getByLabel('Add a target');
  for (const target of [second, first]) {
    await add.locator('option', { hasText: target }).waitFor({ state: 'attached' });
    await add.selectOption({ label: (await add.locator('option', { hasText: target }).textContent()) as string });
  }
  // Added in the wrong order: the throttled model is moved up to be tried first.
  await form.getByRole('button', { name: `Move ${first} up` }).click();
  await form.getByLabel('Cooldown (seconds)').fill('120');
  await form.getByRole('button', { name: 'Create route' }).click();

  const targets = page.getByRole('region', { name: `Targets of ${name}` });
  await targets.getByRole('rowheader', { name: second }).waitFor();
  expect(await targets.getByRole('rowheader').allTextContents()).toEqual([first, second]);

  await fetch(`${process.env.EMULATOR_URL}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: '*', model: THROTTLED, fault: '429', count: 1 }),
  });
  const res = await fetch(`${CONSOLE()}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: name, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 20 }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-model-ops-resource')).toBe(second);
  expect(res.headers.get('x-model-ops-attempts')).toBe('2');

  // The page reads the routes again while it is open: the cooldown appears without a reload, and counts down.
  const cooling = targets.getByRole('row').filter({ has: page.getByRole('rowheader', { name: first }) });
  await cooling.getByText(/cooling down \(throttled\), \d+ s left/).waitFor();
  const left = async () => Number(/(\d+) s left/.exec((await cooling.textContent()) ?? '')?.[1]);
  const before = await left();
  expect(before).toBeGreaterThan(60);
  expect(before).toBeLessThanOrEqual(120);
  // A second later the page shows less left, without being read again.
  for (let tick = 0; (await left()) >= before; tick++) {
    if (tick >= 40) throw new Error('the cooldown does not count down');
    await page.waitForTimeout(250);
  }
});

test('the Chat page chats with the route, and the reply names the resource that answered it', async () => {
  const { page } = b;
  await startConversation(page, unique('route chat'), second);
  const answerWith = page.getByLabel('Answer with');
  await chooseOption(answerWith, answerWith.locator('optgroup[label="Routes"] option', { hasText: name }));
  await page.getByLabel('Message', { exact: true }).fill('Hello through the route');
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.locator('.message.assistant').first();
  await reply.getByLabel('Reply figures').waitFor();
  // The first target still cools down from the throttle above: the second answers, and the reply says so.
  const who = (await reply.locator('.who').textContent()) ?? '';
  expect(who.startsWith(second)).toBe(true);
  expect(who).toContain(`via route ${name}`);
});
