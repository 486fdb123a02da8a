import { ADMIN, CONSOLE, adminNav, logIn, mainNav, browserPerFile, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });
const username = unique('viewer');
const password = 'a-long-enough-password';

test('a super_admin creates a user, who then logs in and sees only the menus of a user', async () => {
  const { page } = b;
  await adminNav(page).getByRole('link', { name: 'Users' }).click();
  await page.getByLabel('New username').fill(username);
  await page.getByLabel('E-mail').fill(`${username}@example.com`);
  await page.getByLabel('Display name').fill('Viewer Person');
  await page.getByLabel('Role', { exact: true }).selectOption('user');
  await page.getByLabel('Initial password').fill(password);
  await page.getByRole('button', { name: 'Create user' }).click();
  await page.getByText(`User ${username} created.`).waitFor();
  await page.getByRole('region', { name: 'Users' }).getByRole('rowheader', { name: username }).waitFor();

  // The same name again is refused in the service's words, beside the form.
  await page.getByLabel('New username').fill(username);
  await page.getByLabel('E-mail').fill(`${username}-2@example.com`);
  await page.getByLabel('Display name').fill('Twin');
  await page.getByLabel('Initial password').fill(password);
  await page.getByRole('button', { name: 'Create user' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /already/i })
    .waitFor();

  await page.getByRole('button', { name: 'Log out' }).click();
  await logIn(page, username, password);
  expect(await mainNav(page).getByRole('link').allTextContents()).toEqual(['Models', 'Resources', 'Routes', 'Chat', 'Usage', 'API keys', 'Teams']);
  expect(await adminNav(page).count()).toBe(0);
  // An admin page typed in is not there for a user.
  await page.goto(`${CONSOLE()}/admin/users`);
  await page.getByRole('heading', { name: 'Not available to your role' }).waitFor();
  await page.getByRole('button', { name: 'Log out' }).click();
  await logIn(page, ADMIN().username, ADMIN().password);
});

test('a role change, a deactivation and a password reset take effect on the user', async () => {
  const { page } = b;
  await page.goto(`${CONSOLE()}/admin/users`);
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: username }) });
  await row.getByLabel(`Role of ${username}`).selectOption('admin');
  await row.getByRole('button', { name: 'Save role' }).click();
  await row.getByText('Role changed to admin.').waitFor();

  await row.getByRole('button', { name: 'Reset password' }).click();
  const dialog = page.getByRole('dialog', { name: `New password for ${username}` });
  await dialog.getByLabel('New password').fill('another-long-password');
  await dialog.getByRole('button', { name: 'Set password' }).click();
  await row.getByText('Password changed.').waitFor();

  await row.getByRole('button', { name: `Deactivate ${username}` }).click();
  await row.getByText('deactivated', { exact: true }).waitFor();

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByLabel('Username or e-mail').fill(username);
  await page.getByLabel('Password').fill('another-long-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /deactivated|Invalid/ })
    .waitFor();
  await logIn(page, ADMIN().username, ADMIN().password);
});

test('credentials are masked, with example calls and a working copy button', async () => {
  const { page } = b;
  await adminNav(page).getByRole('link', { name: 'Credentials' }).click();
  const cloud = page.getByRole('region', { name: 'Managed and dedicated platforms' });
  const secret =
    (await cloud
      .getByText(/^\*{12}.{4}$/)
      .nth(1)
      .textContent()) ?? '';
  expect(secret).toMatch(/^\*{12}.{4}$/);
  expect(secret).not.toContain('test-emulator-secret-access-key');
  await cloud.getByRole('button', { name: 'Copy the curl example' }).click();
  await cloud.getByRole('button', { name: /Copied/ }).waitFor();
  const copied = String(await page.evaluate('navigator.clipboard.readText()'));
  expect(copied).toContain('curl');
  expect(copied).not.toContain('test-emulator-secret-access-key');
});

test('the pricing table, the audit log and a model sync are there for admins', async () => {
  const { page } = b;
  await adminNav(page).getByRole('link', { name: 'Pricing' }).click();
  await page.getByRole('region', { name: 'Instance prices' }).getByRole('rowheader', { name: 'ml.g5.xlarge' }).waitFor();
  await page
    .getByRole('region', { name: 'Token prices' })
    .getByRole('rowheader', { name: 'anthropic.claude-3-haiku-20240307-v1:0' })
    .first()
    .waitFor();

  // A price of a model of its own (nothing else is billed by it): Standard, a cache read price and a
  // Flex price; Priority stays at the working figure.
  const modelId = `test.pricing-${Date.now().toString(36)}-v1:0`;
  await page.getByText('Set a price').click();
  await page.getByLabel('Model id').fill(modelId);
  await page.getByLabel('USD per 1K input tokens', { exact: true }).fill('0.002');
  await page.getByLabel('USD per 1K output tokens', { exact: true }).fill('0.008');
  await page.getByLabel('USD per 1K cache reads (optional)').fill('0.0002');
  await page.getByLabel('Flex: USD per 1K input tokens (optional)').fill('0.001');
  await page.getByLabel('Flex: USD per 1K output tokens (optional)').fill('0.004');
  await page.getByRole('button', { name: 'Save price' }).click();
  const row = page
    .getByRole('region', { name: 'Token prices' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: modelId }) });
  await row.waitFor();
  expect(await row.getByRole('cell').allTextContents()).toEqual([
    'managed',
    '$0.002',
    '$0.008',
    '$0.0002 / — / —',
    'Flex $0.001 / $0.004 (set by an admin)',
    'admin',
  ]);

  await adminNav(page).getByRole('link', { name: 'Model sync' }).click();
  await page.getByRole('button', { name: 'Sync models now' }).click();
  await page.getByRole('region', { name: 'Sync report' }).getByRole('rowheader', { name: 'managed' }).waitFor();

  await adminNav(page).getByRole('link', { name: 'Audit log' }).click();
  const log = page.getByRole('region', { name: 'Audit log' });
  await log.getByRole('rowheader', { name: 'models.sync' }).first().waitFor();
  await log.getByRole('rowheader', { name: 'user.create' }).first().waitFor();
});
