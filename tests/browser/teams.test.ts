import { ADMIN, CONSOLE, api, apiToken, browserPerFile, logIn, mainNav, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });

async function adminToken() {
  return apiToken(ADMIN().username, ADMIN().password);
}

test('an admin creates a team with a budget and limits; its spend shows as a bar against the budget', async () => {
  const { page } = b;
  const name = unique('team');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams' }).click();
  await page.getByLabel('Team name').fill(name);
  await page.getByLabel('Team budget (USD a month)').fill('50');
  await page.getByLabel('Requests per minute').fill('60');
  await page.getByRole('button', { name: 'Create team' }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name }) });
  await row.getByText('$0.00 of $50.00').waitFor();
  await row.getByText('60 rpm').waitFor();
  expect(await row.getByRole('meter').getAttribute('max')).toBe('50');
});

test("a team's page: add a member by username with a budget, make them an owner, set their budget; they see the team", async () => {
  const { page } = b;
  const token = await adminToken();
  const team = (
    await api<{ team: { id: string; name: string } }>('POST', '/api/teams', { token, body: { name: unique('squad'), monthly_budget_usd: 20 } })
  ).team;
  const username = unique('member');
  await api('POST', '/api/admin/users', {
    token,
    body: { username, email: `${username}@example.com`, name: 'Member', role: 'user', password: 'member-password-1' },
  });

  await page.goto(`${CONSOLE()}/teams/${team.id}`);
  await page.getByRole('heading', { name: `Team ${team.name}` }).waitFor();
  await page.getByLabel('Username or e-mail').fill(username);
  await page.getByLabel('Member budget (USD a month)').fill('5');
  await page.getByRole('button', { name: 'Add member' }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: new RegExp(username) }) });
  await row.getByText('$0.00 of $5.00').waitFor();
  await row.getByLabel(`Role of ${username}`).selectOption('owner');
  await row.getByLabel(`Budget of ${username} (USD a month, empty for none)`).fill('7.5');
  await row.getByRole('button', { name: 'Set budget' }).click();
  await row.getByText('$0.00 of $7.50').waitFor();

  const member = await apiToken(username, 'member-password-1');
  const seen = await api<{ teams: { id: string; my_role: string }[] }>('GET', '/api/teams', { token: member });
  expect(seen.teams).toEqual([expect.objectContaining({ id: team.id, my_role: 'owner' })]);
});

test('the keys page makes a team key with the team picker, lists the team’s keys, and a team with keys cannot be deleted', async () => {
  const { page } = b;
  const token = await adminToken();
  const me = (await api<{ user: { id: string } }>('GET', '/api/auth/validate', { token })).user;
  const team = (await api<{ team: { id: string; name: string } }>('POST', '/api/teams', { token, body: { name: unique('keys') } })).team;
  await api('POST', `/api/teams/${team.id}/members`, { token, body: { user_id: me.id, role: 'owner' } });

  await page.goto(`${CONSOLE()}/keys`);
  const name = unique('svc');
  await page.getByLabel('Key name').fill(name);
  await page.getByLabel('Team', { exact: true }).selectOption({ label: team.name });
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('heading', { name: `Key ${name} created for the team ${team.name}` }).waitFor();
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByLabel('Show the keys of').selectOption({ label: `the team ${team.name}` });
  const row = page
    .getByRole('region', { name: `Keys of the team ${team.name}` })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name }) });
  await row.getByText(team.name).waitFor();

  await page.goto(`${CONSOLE()}/teams/${team.id}`);
  await page.getByRole('button', { name: 'Delete the team…' }).click();
  const dialog = page.getByRole('dialog', { name: `Delete the team ${team.name}?` });
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('alert').filter({ hasText: 'The team still has 1 active API key' }).waitFor();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test("an owner invites by username on the team's page; the invitee sees it on the Teams page and joins; the owner cannot add directly", async () => {
  const { page } = b;
  const token = await adminToken();
  const team = (await api<{ team: { id: string; name: string } }>('POST', '/api/teams', { token, body: { name: unique('invite') } })).team;
  const [owner, invitee] = [unique('owner'), unique('invitee')];
  const ids: Record<string, string> = {};
  for (const username of [owner, invitee]) {
    const created = await api<{ user: { id: string } }>('POST', '/api/admin/users', {
      token,
      body: { username, email: `${username}@example.com`, name: username, role: 'user', password: 'member-password-1' },
    });
    ids[username] = created.user.id;
  }
  await api('POST', `/api/teams/${team.id}/members`, { token, body: { user_id: ids[owner], role: 'owner' } });

  await page.getByRole('button', { name: 'Log out' }).click();
  await logIn(page, owner, 'member-password-1');
  await page.goto(`${CONSOLE()}/teams/${team.id}`);
  await page.getByRole('heading', { name: `Team ${team.name}` }).waitFor();
  await page.getByText('No pending invitations.').waitFor();
  expect(await page.getByRole('button', { name: 'Add member' }).count()).toBe(0);
  await page.getByLabel('Invitee').fill(invitee);
  await page.getByLabel('Their budget (USD a month)').fill('4');
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Invitation sent to ${invitee}.` })
    .waitFor();
  const pending = page
    .getByRole('region', { name: 'Pending invitations' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: invitee }) });
  await pending.getByText('$4.00 a month').waitFor();

  await page.getByRole('button', { name: 'Log out' }).click();
  await logIn(page, invitee, 'member-password-1');
  await mainNav(page).getByRole('link', { name: 'Teams' }).click();
  await page.getByText('You are not in a team yet.').waitFor();
  const invitation = page
    .getByRole('region', { name: 'Invitations for you' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: team.name }) });
  await invitation.getByText(owner).waitFor();
  await invitation.getByRole('button', { name: `Join ${team.name}` }).click();
  const joined = page
    .getByRole('region', { name: 'Teams' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: team.name }) });
  await joined.getByRole('cell', { name: 'member', exact: true }).waitFor();
  expect(await page.getByRole('heading', { name: 'Invitations for you' }).count()).toBe(0);

  const roster = await api<{ members: { user_id: string; source: string; monthly_budget_usd: number }[] }>('GET', `/api/teams/${team.id}/members`, {
    token,
  });
  expect(roster.members).toEqual(
    expect.arrayContaining([expect.objectContaining({ user_id: ids[invitee], source: 'invitation', monthly_budget_usd: 4 })]),
  );

  await page.getByRole('button', { name: 'Log out' }).click();
  await logIn(page, ADMIN().username, ADMIN().password);
});
