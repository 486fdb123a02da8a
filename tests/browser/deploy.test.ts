import { DeleteEndpointCommand, DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ADMIN, CONSOLE, api, apiToken, browserPerFile, unique } from './helpers';

// One login for the file: every test here is the same admin's session.
const b = browserPerFile({ loggedIn: true });

test('the three catalogues are browsable and searchable, and a model shows its modalities, pricing and usage', async () => {
  const { page } = b;
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
  const table = page.getByRole('region', { name: 'Managed models' });
  await table.getByRole('link', { name: 'anthropic.claude-3-haiku-20240307-v1:0' }).waitFor();
  // Each model says how it is invoked and whether it is LEGACY, with the end of life Bedrock gives.
  const sonnet = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'anthropic.claude-sonnet-4-5-20250929-v1:0' }) });
  await sonnet.getByText('global.anthropic.claude-sonnet-4-5-20250929-v1:0').waitFor();
  expect(await sonnet.getByText('on demand').count()).toBe(0);
  const haiku = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'anthropic.claude-3-haiku-20240307-v1:0' }) });
  await haiku.getByText('LEGACY, end of life 2026-09-10').waitFor();
  await page.getByLabel('Search models').fill('nova');
  await page.getByText('1 of 14 models').waitFor();
  await table.getByRole('link', { name: 'amazon.nova-lite-v1:0' }).click();
  await page.getByRole('heading', { name: 'amazon.nova-lite-v1:0', level: 1 }).waitFor();
  await page.getByText('TEXT, IMAGE, VIDEO').waitFor();
  await page.getByRole('heading', { name: 'Pricing' }).waitFor();
  await page.getByText('per 1K input tokens').first().waitFor();
  await page.getByRole('heading', { name: 'Usage through this service' }).waitFor();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Models' }).click();
  await page.getByRole('navigation', { name: 'Platforms' }).getByRole('link', { name: 'Hosted' }).click();
  await page.getByRole('region', { name: 'Hosted models' }).getByRole('link', { name: 'meta/llama-3.1-8b-instruct' }).click();
  await page.getByRole('heading', { name: 'meta/llama-3.1-8b-instruct', level: 1 }).waitFor();
  await page.getByText('SYSTEM_PROMPT').waitFor();

  await page.goto(`${CONSOLE()}/models/dedicated`);
  await page.getByRole('heading', { level: 2 }).first().waitFor();
  expect(
    await page
      .getByRole('listitem')
      .filter({ has: page.getByRole('link', { name: /^Deploy / }) })
      .count(),
  ).toBeGreaterThan(0);
});

test('a dedicated endpoint is planned with its cost, deployed on confirmation, followed to InService, restarted and deleted', async () => {
  const { page } = b;
  const name = unique('console-e2e');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deploy' }).click();
  await page.getByRole('navigation', { name: 'Platforms' }).getByRole('link', { name: 'Dedicated' }).click();
  const packages = page.getByLabel('Model package');
  await packages.locator('option').nth(1).waitFor({ state: 'attached' });
  await packages.selectOption({ index: 1 });
  await page.getByLabel('Endpoint name').fill(name);
  await page.getByLabel('Idle timeout (minutes)').fill('30');
  await page.getByLabel('Monthly budget (USD)').fill('25');
  await page.getByRole('button', { name: 'Review the plan' }).click();

  // The plan comes first, with its cost and what its guardrails will do; nothing exists yet.
  const plan = page.getByRole('region', { name: /Plan \(dry run\)/ });
  await plan
    .getByLabel('Estimated cost')
    .getByText(/per hour/)
    .waitFor();
  await plan.getByText(name).first().waitFor();
  const effects = (await plan.getByRole('region', { name: 'Guardrails' }).textContent()) ?? '';
  expect(effects).toMatch(/30 minutes/);
  expect(effects).toMatch(/\$25/);
  await page.getByRole('button', { name: 'Deploy the endpoint' }).click();
  await page.getByRole('heading', { name: `Deployment started: ${name}` }).waitFor();
  await page.getByRole('button', { name: 'Open the resource' }).click();

  // The resource page polls the status until the endpoint is in service.
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  await page.locator('.status-line').getByText('InService').waitFor({ timeout: 30_000 });
  await page.getByRole('heading', { name: 'Cost' }).waitFor();
  await page.getByText('per hour, until deleted').waitFor();
  // Its guardrails, and (for an admin) a form that changes them.
  const guardrails = page.getByRole('region', { name: 'Guardrails' });
  await guardrails.getByText('30 min without invocations').waitFor();
  await guardrails.getByLabel('Monthly budget (USD)').fill('40');
  await guardrails.getByRole('button', { name: 'Save guardrails' }).click();
  await guardrails.getByText('$40.00').first().waitFor();

  await page.getByRole('button', { name: 'Restart' }).click();
  await page.getByText('The restart was accepted').waitFor();
  await page.locator('.status-line').getByText('InService').waitFor({ timeout: 30_000 });

  // The list shows it too.
  await page.getByRole('link', { name: '← All resources' }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name }) });
  await row.getByText('InService').waitFor();
  await row.getByRole('link', { name }).click();

  // Delete asks first; cancelling keeps the endpoint.
  await page.getByRole('button', { name: 'Delete…' }).click();
  const dialog = page.getByRole('dialog', { name: `Delete ${name}?` });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await page.getByRole('button', { name: 'Delete…' }).click();
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('heading', { name: 'Resource deleted' }).waitFor({ timeout: 30_000 });
});

test('a deploy the service refuses shows its reason beside the form', async () => {
  const { page } = b;
  await page.goto(`${CONSOLE()}/deploy/managed`);
  const model = page.getByLabel('Model');
  await model.locator('option').nth(1).waitFor({ state: 'attached' });
  await model.selectOption('amazon.titan-text-express-v1');
  await page.getByLabel('Endpoint name').fill('not a valid name!');
  await page.getByRole('button', { name: 'Review the plan' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /endpointName/ })
    .waitFor();
  expect(await page.getByRole('region', { name: /Plan \(dry run\)/ }).count()).toBe(0);
});

test('the keyboard alone moves through the menu to a page and submits a form with Enter', async () => {
  const { page } = b;
  await page.goto(`${CONSOLE()}/models`);
  await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deploy' }).focus();
  await page.keyboard.press('Enter');
  // Focus lands on the new page's heading, and the next Tab reaches the page's own controls.
  // (page.waitForFunction would evaluate a string inside the page, which the console's CSP forbids.)
  for (let tries = 0; (await page.evaluate('document.activeElement?.tagName + ":" + document.activeElement?.textContent')) !== 'H1:Deploy'; tries++) {
    if (tries > 50) throw new Error('focus did not move to the Deploy heading');
    await page.waitForTimeout(100);
  }
  await page.keyboard.press('Tab');
  expect(await page.evaluate('document.activeElement?.textContent')).toBe('Managed');
  const model = page.getByLabel('Model');
  await model.locator('option').nth(1).waitFor({ state: 'attached' });
  await model.focus();
  await page.keyboard.press('ArrowDown');
  await page.getByLabel('Endpoint name').focus();
  await page.keyboard.type('-by-keyboard');
  await page.keyboard.press('Enter');
  await page
    .getByRole('region', { name: /Plan \(dry run\)/ })
    .getByLabel('Estimated cost')
    .waitFor();
});

test('at 375 pixels the resources and users tables read as cards: every status and every user’s actions on the screen, under their column’s name', async () => {
  const { page } = b;
  const token = await apiToken(ADMIN().username, ADMIN().password);
  await api('POST', '/api/deploy/managed', {
    token,
    body: { modelId: 'anthropic.claude-3-haiku-20240307-v1:0', endpointName: unique('narrow'), dryRun: false },
  });
  await page.setViewportSize({ width: 375, height: 740 });
  try {
    for (const [path, region, column] of [
      ['/resources', 'Resources', 'Status'],
      ['/admin/users', 'Users', 'Actions'],
    ] as const) {
      await page.goto(`${CONSOLE()}${path}`);
      const box = page.getByRole('region', { name: region });
      const cells = box.locator(`td[data-label="${column}"]`);
      await cells.first().waitFor();
      // Nothing in the box is out of sight to its right: there is nothing to scroll to.
      expect(await box.evaluate((e) => e.scrollWidth - e.clientWidth)).toBe(0);
      for (const cell of (await cells.all()).slice(0, 5)) {
        const rect = (await cell.boundingBox()) as { x: number; width: number };
        expect(rect.x + rect.width).toBeLessThanOrEqual(375);
        // The column's name stands beside the value, where a header would be.
        expect(
          await cell.evaluate(
            (e) =>
              (globalThis as unknown as { getComputedStyle: (e: unknown, p: string) => { content: string } }).getComputedStyle(e, '::before').content,
          ),
        ).toBe(`"${column}"`);
      }
      // And a user's action can be reached and pressed where it is.
      if (column === 'Actions') await cells.locator('button:enabled').first().click({ trial: true });
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test('no page scrolls sideways on a 375-pixel-wide screen', async () => {
  const { page } = b;
  // A long name and e-mail widen the users table well past the screen: it must scroll in its box,
  // and nothing inside it (the role selects' hidden labels) may stick out of the box.
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const wide = unique('wide');
  await api('POST', '/api/admin/users', {
    token,
    body: { username: wide, email: `${wide}-${'w'.repeat(40)}@example.com`, name: 'W'.repeat(60), role: 'user', password: 'a-long-enough-password' },
  });
  await page.setViewportSize({ width: 375, height: 740 });
  try {
    for (const path of [
      '/models',
      '/models/dedicated',
      '/deploy/dedicated',
      '/resources',
      '/chat',
      '/usage',
      '/admin/users',
      '/admin/credentials',
      '/admin/pricing',
      '/admin/audit',
      '/admin/sync',
    ]) {
      await page.goto(`${CONSOLE()}${path}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      const wide = overflow
        ? await page.evaluate(
            `[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 8).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right) + ' ' + (e.textContent || '').slice(0, 80)).join(' | ')`,
          )
        : '';
      expect([path, overflow, wide]).toEqual([path, 0, '']);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
});

test('a dedicated endpoint deleted behind the service’s back reads OutOfService with the reason, is started again from the page, and can be deleted from it', async () => {
  const { page } = b;
  const name = unique('console-vanish');
  const token = await apiToken(ADMIN().username, ADMIN().password);
  const models = await api<{ models: { modelPackageArn: string }[] }>('GET', '/api/models/dedicated?source=account&max=1', { token });
  const deployed = await api<{ id: string }>('POST', '/api/deploy/dedicated', {
    token,
    body: { endpointName: name, instanceType: 'ml.g5.xlarge', modelPackageArn: models.models[0]?.modelPackageArn, dryRun: false },
  });
  const sagemaker = new SageMakerClient({
    region: 'us-east-1',
    endpoint: process.env.EMULATOR_URL,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  const deleteBehindTheBack = async () => {
    await sagemaker.send(new DeleteEndpointCommand({ EndpointName: name }));
    await expect(sagemaker.send(new DescribeEndpointCommand({ EndpointName: name }))).rejects.toThrow(/Could not find endpoint/);
  };
  try {
    await page.goto(`${CONSOLE()}/resources/${deployed.id}`);
    await page.locator('.status-line').getByText('InService').waitFor({ timeout: 30_000 });
    await deleteBehindTheBack();

    await page.reload();
    await page.locator('.status-line').getByText('OutOfService').waitFor();
    await page.getByText('The endpoint no longer exists on the platform (deleted outside this service)').waitFor();
    await page.getByRole('button', { name: 'Start' }).click();
    await page.getByText('The start was accepted').waitFor();
    await page.locator('.status-line').getByText('InService').waitFor({ timeout: 30_000 });

    await deleteBehindTheBack();
    await page.reload();
    await page.locator('.status-line').getByText('OutOfService').waitFor();
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page
      .getByRole('dialog', { name: `Delete ${name}?` })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('heading', { name: 'Resource deleted' }).waitFor({ timeout: 30_000 });
  } finally {
    sagemaker.destroy();
  }
});
