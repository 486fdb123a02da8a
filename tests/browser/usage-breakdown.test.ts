import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nanosOf, usdText } from '../../core/money';
import { ADMIN, CONSOLE, api, apiToken, browserPerFile, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });
const keyName = unique('breakdown');
let key: { id: string; key: string };
let cost = 0;

interface BreakdownRow {
  group: { id: string };
  cost_usd: string;
  requests: number;
}

/** Two /v1 calls with a fresh key through the front door, as an OpenAI client makes them; their cost headers summed. */
beforeAll(async () => {
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const endpointName = unique('breakdown-haiku');
  await api('POST', '/api/deploy/managed', { token, body: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName, dryRun: false } });
  key = await api('POST', '/api/keys', { token, body: { name: keyName } });
  for (const content of ['What is a breakdown?', 'And an export?']) {
    const res = await fetch(`${CONSOLE()}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: endpointName, messages: [{ role: 'user', content }], max_tokens: 50 }),
    });
    expect(res.status).toBe(200);
    cost += nanosOf(res.headers.get('x-model-ops-cost-usd') as string);
  }
  // The breakdown is folded from the table's stream (about a second behind): wait until the key's row holds both calls.
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
    const { rows } = await api<{ rows: BreakdownRow[] }>('GET', '/api/usage/breakdown?groupBy=key', { token });
    if (rows.find((r) => r.group.id === key.id)?.requests === 2) break;
  }
}, 90_000);

test('the Usage page breaks spend down by key with a stacked chart by day, and downloads the same figures as CSV', async () => {
  const { page } = b;
  await page.goto(`${CONSOLE()}/usage`);
  await page.getByLabel('Group by').selectOption('key');
  // Ten days back, so the day axis spans a range: several labelled days, not one.
  const from = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel('From').fill(from);

  const name = `${keyName} (${key.key.slice(0, 11)}…)`;
  const table = page.getByRole('region', { name: 'Spend by API key' });
  const row = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  await row.waitFor();
  const cells = await row.getByRole('cell').allTextContents();
  expect(cells[0]).toBe(`$${usdText(cost)}`);
  expect(cells[4]).toBe('2');

  const chart = page.getByRole('figure', { name: /^Cost by day and API key, / });
  const dayTicks = await chart.locator('.x-axis text').allTextContents();
  expect(dayTicks.length).toBeGreaterThanOrEqual(6);
  expect(new Set(dayTicks).size).toBe(dayTicks.length);
  // The chart stacks the six most expensive keys and bands the rest as "Others". Every e2e and browser
  // file makes keys on the one stack, so this file's key may be either: the legend follows the table's
  // order, which holds this key (above), and names it when it is among the first six.
  const keys = await table.getByRole('rowheader').allTextContents();
  const legend = (await chart.getByRole('listitem').allTextContents()).map((text) => text.trim());
  expect(legend).toEqual(keys.length > 6 ? [...keys.slice(0, 6), `Others (${keys.length - 6})`] : keys);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^usage-by-key-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/);
  // Saved where this process can read it: the browser may run in another process (the test runtime's).
  const folder = mkdtempSync(join(tmpdir(), 'usage-csv-'));
  const saved = join(folder, download.suggestedFilename());
  await download.saveAs(saved);
  const lines = readFileSync(saved, 'utf8').split('\r\n');
  rmSync(folder, { recursive: true, force: true });
  expect(lines[0]).toBe('group_id,group_name,cost_usd,tokens_in,tokens_out,cached_tokens,requests');
  const mine = lines.find((l) => l.startsWith(`${key.id},`))?.split(',');
  expect(mine?.[1]).toBe(name);
  expect(mine?.[2]).toBe(usdText(cost));
  expect(mine?.[6]).toBe('2');
});
