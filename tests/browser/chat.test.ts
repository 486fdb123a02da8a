import { ADMIN, CONSOLE, api, apiToken, browserPerFile, startConversation, unique } from './helpers';

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
  await startConversation(page, title, endpoint);

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
  // The reply is the resource's, by its name (not the model's id on the platform).
  expect((await reply.locator('.who').textContent())?.startsWith(endpoint)).toBe(true);
  // The conversation's own running figures come from the usage endpoint, counted in words.
  await page
    .getByLabel('Conversation usage')
    .getByText(/ · 1 request$/)
    .waitFor();
});

test('a reply in Markdown reads as chat consoles show it: lists, tables and code as written, with a copy button; no HTML, script or script URL of it runs', async () => {
  const { page } = b;
  const code = 'def greet(name):\n    if name:\n        return f"Hello, {name}!"\n    return "Hello!"';
  const answer = [
    '## Steps',
    '',
    '1. **Install** the package',
    '2. Run `greet()`',
    '',
    '| Item | Price |',
    '| --- | --- |',
    '| tea | $2 |',
    '',
    '```python',
    code,
    '```',
    '',
    '<img src="x" onerror="window.__pwned = 1"> <script>window.__pwned = 2</script>',
    '',
    '[a harmless-looking link](javascript:window.__pwned=3) and ![a picture](javascript:window.__pwned=4)',
  ].join('\n');
  // The emulated model answers a message that starts with "echo:" with the rest of it (local/emulator/chat.ts).
  await page.getByLabel('Message', { exact: true }).fill(`echo: ${answer}`);
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.locator('.message.assistant', { has: page.getByRole('heading', { name: 'Steps' }) });
  await reply.waitFor();

  await reply.getByRole('listitem').filter({ hasText: 'Install the package' }).locator('strong').waitFor();
  expect(await reply.locator('li code').textContent()).toBe('greet()');
  expect(await reply.getByRole('cell', { name: '$2' }).count()).toBe(1);
  // The code block keeps its lines and indentation exactly, and its button copies exactly that.
  expect(await reply.locator('pre code').textContent()).toBe(`${code}\n`);
  expect(await reply.locator('.code-head').textContent()).toContain('python');
  await reply.getByRole('button', { name: 'Copy code' }).click();
  await reply.getByRole('button', { name: /Copied/ }).waitFor();
  expect(await page.evaluate('navigator.clipboard.readText()')).toBe(code);

  // Raw HTML reads as text; nothing of it became an element; no script URL survives.
  await reply.getByText('<img src="x" onerror="window.__pwned = 1">', { exact: false }).waitFor();
  expect(await reply.locator('img, script, [onerror]').count()).toBe(0);
  const hrefs = await reply.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''));
  expect(hrefs.some((h) => /script:/i.test(h))).toBe(false);
  await reply.getByText('a harmless-looking link').click();
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
});

test('the usage charts by conversation and by hour grow with the next reply', async () => {
  const { page } = b;
  const before = await usageTokens();
  expect(before.conversation).toBeGreaterThan(0);
  expect(before.lastDay).toBeGreaterThanOrEqual(before.conversation);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chat' }).click();
  await page.getByRole('link', { name: title }).click();
  // The conversation holds the replies of the two tests above; the next one is its third request. (Waiting
  // for "2 requests" here once let a loaded run read the charts before the reply was recorded.)
  const usageLine = page.getByLabel('Conversation usage');
  await usageLine.getByText(/ · 2 requests$/).waitFor();
  await page.getByLabel('Message', { exact: true }).fill('And of Italy?');
  await page.getByRole('button', { name: 'Send' }).click();
  await usageLine.getByText(/ · 3 requests$/).waitFor();
  let after = await usageTokens();
  expect(after.conversation).toBeGreaterThan(before.conversation);
  // Seen once in a loaded full run: the hours chart read unchanged right after the reply, while the
  // conversation's figures had grown. The page is read again (a fresh load each time) until the
  // hours show the reply, for at most 20 s. Other test files chat as the same admin at the same time,
  // so the hours grow by at least this reply.
  for (const until = Date.now() + 20_000; after.lastDay - before.lastDay < after.conversation - before.conversation && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 500));
    after = await usageTokens();
  }
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

test('a long conversation with a model that caches shows what the prompt cache read and wrote in the reply figures', async () => {
  const { page } = b;
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const sonnet = unique('chat-sonnet');
  // Claude Sonnet 4.5 is profile-only: `auto` deploys it through the US geographic profile.
  await api('POST', '/api/deploy/managed', {
    token,
    body: { modelId: 'anthropic.claude-sonnet-4-5-20250929-v1:0', endpointName: sonnet, dryRun: false },
  });
  await startConversation(page, unique('Cached chat'), sonnet);
  const replies = page.getByRole('listitem').filter({ has: page.getByLabel('Reply figures') });
  // The first message puts the history over Sonnet 4.5's 1,024-token minimum; the third turn reads what the second wrote.
  const messages = ['Keep this paragraph in mind for the rest of our talk, please. '.repeat(100), 'And now?', 'One more thing.'];
  for (const [i, text] of messages.entries()) {
    await page.getByLabel('Message', { exact: true }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    await replies.nth(i).waitFor();
  }
  expect(await replies.nth(0).getByLabel('Prompt cache').count()).toBe(0);
  await expect(replies.nth(2).getByLabel('Prompt cache').textContent()).resolves.toMatch(/^cache: [\d,]+ read, [\d,]+ written \(\$0\.\d+\)$/);
});
