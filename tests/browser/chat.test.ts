import { ADMIN, CONSOLE, api, apiToken, browserPerFile, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });
const endpoint = unique('chat-haiku');
const title = unique('Console chat');

/** The usage page in tokens: the conversation's figure in the "by conversation" chart, and the total of the hourly chart. */
async function usageTokens(): Promise<{ conversation: number; lastDay: number }> {
  const { page } = b;
  await page.goto(`${CONSOLE()}/usage`);
  await page.getByLabel('Measure').selectOption('tokens_total');
  const hourly = page.getByRole('figure', { name: /^Tokens by hour, last 24 hours$/ });
  const canvasLabel = (await hourly.locator('canvas').getAttribute('aria-label')) ?? '';
  const lastDay = Number(/total ([\d,]+)/.exec(canvasLabel)?.[1]?.replace(/,/g, '') ?? 0);
  const figure = page.getByRole('figure', { name: /Tokens by conversation, last 24 hours/ });
  await figure.waitFor();
  const summary = figure.getByText(/^Figures of/);
  if ((await summary.count()) === 0) return { conversation: 0, lastDay };
  await summary.click();
  const cell = figure
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: title }) })
    .getByRole('cell');
  if ((await cell.count()) === 0) return { conversation: 0, lastDay };
  return { conversation: Number((await cell.textContent())?.replace(/,/g, '')), lastDay };
}

test('managed access is planned with its per-token cost and registered on confirmation', async () => {
  const { page } = b;
  await page.goto(`${CONSOLE()}/deploy/managed`);
  const model = page.getByLabel('Model');
  await model.locator('option').nth(1).waitFor({ state: 'attached' });
  await model.selectOption('anthropic.claude-3-haiku-20240307-v1:0');
  await page.getByLabel('Endpoint name').fill(endpoint);
  await page.getByRole('button', { name: 'Review the plan' }).click();
  await page
    .getByLabel('Estimated cost')
    .getByText(/per 1K input tokens/)
    .waitFor();
  await page.getByRole('button', { name: 'Deploy access' }).click();
  await page.getByRole('heading', { name: `Deployment started: ${endpoint}` }).waitFor();
  await page.getByText('InService', { exact: true }).waitFor();
});

test('a conversation is started with the resource, and a reply shows its tokens, latency and cost', async () => {
  const { page } = b;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Use case').fill('browser test');
  const resource = page.getByLabel('Resource');
  await resource.locator('option', { hasText: endpoint }).waitFor({ state: 'attached' });
  await resource.selectOption({ label: (await resource.locator('option', { hasText: endpoint }).textContent()) as string });
  await page.getByRole('button', { name: 'Start conversation' }).click();
  await page.getByRole('heading', { name: title, level: 2 }).waitFor();

  await page.getByLabel('Message', { exact: true }).fill('What is the capital of France?');
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page
    .getByRole('listitem')
    .filter({ has: page.getByLabel('Reply figures') })
    .first();
  await reply.waitFor();
  const figures = (await reply.getByLabel('Reply figures').textContent()) ?? '';
  expect(figures).toMatch(/\d+ in \+ \d+ out = \d+ tokens/);
  expect(figures).toMatch(/\d+ ms/);
  expect(figures).toMatch(/cost \$0\.\d+/);
  // The conversation's own running figures come from the usage endpoint.
  await page
    .getByLabel('Conversation usage')
    .getByText(/1 requests/)
    .waitFor();
});

test('the usage charts by conversation and by hour grow with the next reply', async () => {
  const { page } = b;
  const before = await usageTokens();
  expect(before.conversation).toBeGreaterThan(0);
  expect(before.lastDay).toBeGreaterThanOrEqual(before.conversation);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
  await page.getByRole('link', { name: title }).click();
  await page.getByLabel('Message', { exact: true }).fill('And of Italy?');
  await page.getByRole('button', { name: 'Send' }).click();
  await page
    .getByLabel('Conversation usage')
    .getByText(/2 requests/)
    .waitFor();
  const after = await usageTokens();
  expect(after.conversation).toBeGreaterThan(before.conversation);
  // Other test files chat as the same admin at the same time, so the caller's hours grow by at least this reply.
  expect(after.lastDay - before.lastDay).toBeGreaterThanOrEqual(after.conversation - before.conversation);
});

test('legacy messages of a conversation are readable', async () => {
  const { page } = b;
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const resources = await api<{ resources: { id: string; name: string }[] }>('GET', '/api/resources?type=managed&limit=100', { token });
  const resourceId = resources.resources.find((r) => r.name === endpoint)?.id as string;
  const conversations = await api<{ conversations: { id: string; title: string }[] }>('GET', '/api/conversations', { token });
  const conversationId = conversations.conversations.find((c) => c.title === title)?.id as string;
  await api('POST', '/api/chat', { token, body: { message: 'A legacy question', conversationId, resourceId } });

  await page.goto(`${CONSOLE()}/chat/${conversationId}`);
  await page.getByRole('button', { name: 'Legacy messages (no thread)' }).click();
  await page.getByRole('list', { name: 'Legacy messages' }).getByText('A legacy question', { exact: true }).waitFor();
  expect(await page.getByLabel('Message', { exact: true }).count()).toBe(0);
});
