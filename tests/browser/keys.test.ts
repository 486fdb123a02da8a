import { CONSOLE, browserPerFile, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });

/** GET /v1/models with a key, as an OpenAI client would call it: the status. */
async function modelsStatus(key: string): Promise<number> {
  const res = await fetch(`${CONSOLE()}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  return res.status;
}

test('a key is created with its secret shown once, works on /v1, and is refused there from the moment it is revoked', async () => {
  const { page } = b;
  const name = unique('laptop');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Key name').fill(name);
  await page.getByLabel('Monthly budget (USD)').fill('5');
  await page.getByRole('button', { name: 'Create key' }).click();

  const secret = (await page.getByLabel('The new key').textContent()) ?? '';
  expect(secret).toMatch(/^mo_[A-Za-z0-9_-]{43}$/);
  expect(await modelsStatus(secret)).toBe(200);

  // The list shows the key by its prefix and budget, never the secret; once dismissed, the secret is gone from the page.
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  await row.getByText('$5.00').waitFor();
  expect(secret.startsWith(((await row.locator('td.mono').textContent()) ?? '').replace('…', ''))).toBe(true);
  await page.getByRole('button', { name: 'Done' }).click();
  expect(await page.content()).not.toContain(secret);

  await row.getByRole('button', { name: 'Revoke…' }).click();
  await page
    .getByRole('dialog', { name: `Revoke ${name}?` })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await row.getByText(/^revoked/).waitFor();
  expect(await modelsStatus(secret)).toBe(401);
});
