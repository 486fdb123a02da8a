import { ADMIN, CONSOLE, api, apiToken, browserPerFile, unique } from './helpers';

// One login for the file: the seeded super_admin's session.
const b = browserPerFile({ loggedIn: true });

test('an admin sees a new dedicated endpoint is for admins only, grants it to a user on its page, and the grant is what the API reads', async () => {
  const { page } = b;
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const username = unique('grantee').replace('-', '_');
  const person = await api<{ user: { id: string } }>('POST', '/api/admin/users', {
    token,
    body: { username, email: `${username}@example.com`, name: 'Grantee', role: 'user', password: 'a-long-password' },
  });
  const models = await api<{ models: { modelPackageArn: string }[] }>('GET', '/api/models/dedicated?source=account&max=1', { token });
  const deployed = await api<{ id: string }>('POST', '/api/deploy/dedicated', {
    token,
    body: { endpointName: unique('console-access'), instanceType: 'ml.g5.xlarge', modelPackageArn: models.models[0]?.modelPackageArn, dryRun: false },
  });
  try {
    await page.goto(`${CONSOLE()}/resources/${deployed.id}`);
    const panel = page.getByRole('region', { name: 'Who may use it' });
    await panel.getByText('never: the platform default').waitFor();
    await panel.getByText('Admins', { exact: true }).waitFor();

    await panel.getByRole('checkbox', { name: username }).check();
    await panel.getByRole('button', { name: 'Save access' }).click();
    await panel.getByText(`Admins, ${username}`).waitFor();

    const status = await api<{ access: { everyone: boolean; user_ids: string[]; default: boolean } }>('GET', `/api/resources/${deployed.id}/status`, {
      token,
    });
    expect(status.access).toMatchObject({ everyone: false, user_ids: [person.user.id], default: false });
  } finally {
    await api('POST', `/api/resources/${deployed.id}/control`, { token, body: { action: 'delete', confirm: true } }).catch(() => undefined);
  }
});
