import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN, adminNav, api, apiToken, browserPerFile, mainNav, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });

/** A webhook receiver on this machine's loopback (the e2e stage allows http://127.0.0.1). */
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let testArrived: () => void;
const testEvent = new Promise<void>((resolve) => (testArrived = resolve));
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    received.push({ headers: req.headers, body });
    res.writeHead(204).end();
    if (JSON.parse(body).event === 'alert.test') testArrived();
  });
});
let hookUrl: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise((r) => server.close(r)));

test('an admin creates a webhook channel (its secret shown once), sends a test and sees it delivered, signed', async () => {
  const { page } = b;
  const name = unique('hook');
  await adminNav(page).getByRole('link', { name: 'Alerts' }).click();
  await page.getByLabel('Channel name').fill(name);
  await page.getByLabel('Webhook URL').fill(hookUrl);
  await page.getByRole('button', { name: 'Create channel' }).click();
  const secret = (await page.getByLabel('The signing secret').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_/);
  await page.getByRole('button', { name: 'Done' }).click();
  expect(await page.content()).not.toContain(secret);

  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  await row.getByText(`************${secret.slice(-4)}`).waitFor();
  await row.getByRole('button', { name: 'Send test' }).click();
  await page.getByText(`A test event is on its way to ${name}`).waitFor();

  // The deliverer reads the table's stream beside serverless-offline, as under npm start. Once the
  // receiver has the event, its delivery is recorded a moment later: Refresh reads the list again.
  await testEvent;
  const delivered = page
    .getByRole('region', { name: 'Alert deliveries' })
    .getByRole('row')
    .filter({ hasText: name })
    .filter({ hasText: 'alert.test' })
    .filter({ has: page.getByText('delivered', { exact: true }) });
  for (let tries = 0; tries < 50 && (await delivered.count()) === 0; tries++) await page.getByRole('button', { name: 'Refresh' }).click();
  await delivered.waitFor();

  const mine = received.filter((r) => JSON.parse(r.body).event === 'alert.test');
  expect(mine).toHaveLength(1);
  const signature = `sha256=${createHmac('sha256', secret)
    .update(mine[0]?.body as string)
    .digest('hex')}`;
  expect(mine[0]?.headers['x-model-ops-signature']).toBe(signature);
});

test('thresholds typed beside a key budget as percentages are stored as fractions and read back', async () => {
  const { page } = b;
  const name = unique('alerting');
  await mainNav(page).getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Key name').fill(name);
  await page.getByLabel('Monthly budget (USD)').fill('20');
  await page.getByLabel('Alert at (% of budget)').fill('100, 50, 90');
  await page.getByRole('button', { name: 'Create key' }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  await row.getByText('50, 90, 100 %').waitFor();
  await page.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await row.getByText('50, 90, 100 %').waitFor();
});

test("a user's budget and thresholds set on the Users page are read back after a reload; cleared thresholds show the default", async () => {
  const { page } = b;
  const username = unique('budgeted');
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const body = { username, email: `${username}@example.com`, name: 'Budgeted Person', role: 'user', password: 'a-long-enough-password' };
  const { user } = await api<{ user: { id: string } }>('POST', '/api/admin/users', { token, body });

  await adminNav(page).getByRole('link', { name: 'Users' }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: username }) });
  await row.getByText('Alerts at 80, 100 %').waitFor();
  const dialog = page.getByRole('dialog', { name: `Monthly budget of ${username}` });
  const openDialog = () => row.getByRole('button', { name: 'Set budget…' }).click();
  /** Types what is given into the open dialog's fields and saves. */
  const save = async (fields: { budget?: string; alertAt?: string }) => {
    if (fields.budget !== undefined) await dialog.getByLabel('Monthly budget (USD)').fill(fields.budget);
    if (fields.alertAt !== undefined) await dialog.getByLabel('Alert at (% of budget)').fill(fields.alertAt);
    await dialog.getByRole('button', { name: 'Save budget' }).click();
  };
  await openDialog();
  await save({ budget: '5', alertAt: '50, 90' });
  await row.getByText('Budget saved.').waitFor();

  await page.reload();
  await row.getByText('$5.00').waitFor();
  await row.getByText('Alerts at 50, 90 %').waitFor();
  await openDialog();
  expect(await dialog.getByLabel('Monthly budget (USD)').inputValue()).toBe('5');
  expect(await dialog.getByLabel('Alert at (% of budget)').inputValue()).toBe('50, 90');

  // Thresholds that make no sense are refused in the API's words, in the dialog, and change nothing.
  await save({ alertAt: '50, 150' });
  await dialog.getByRole('alert').waitFor();
  expect(await row.getByText('Alerts at 50, 90 %').count()).toBe(1);

  await save({ alertAt: '' });
  await row.getByText('Alerts at 80, 100 %').waitFor();
  await page.reload();
  await row.getByText('Alerts at 80, 100 %').waitFor();
  await row.getByText('$5.00').waitFor();
  expect((await api('GET', `/api/admin/users/${user.id}`, { token })).user).toMatchObject({ monthly_budget_usd: 5, alert_thresholds: [0.8, 1] });

  // An empty budget clears it: the user has none.
  await openDialog();
  await save({ budget: '' });
  await row.getByRole('cell', { name: /^none/ }).waitFor();
  expect((await api('GET', `/api/admin/users/${user.id}`, { token })).user.monthly_budget_usd).toBeNull();
});
