/**
 * DynamoDB stopped mid-run: requests get a 503 with a clear message within a bounded time (no hang);
 * after it comes back the service recovers without a restart and every record written before is
 * still there. This file runs its own DynamoDB Local (data on disk, so a restart keeps it), because
 * stopping the shared one would pull the floor from under the other test files.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, localDynamoClient, startDynamo, type Dynamo } from '../../local/runtime';
import { ensureTable } from '../../tables/definition';
import { call, type Handler } from '../helpers/invoke';

let dynamo: Dynamo | undefined;
let port = 0;
const dbPath = mkdtempSync(join(tmpdir(), 'outage-'));

beforeAll(async () => {
  port = await freePort();
  dynamo = await startDynamo({ port, dbPath });
  const client = localDynamoClient(dynamo.endpoint);
  await ensureTable(client, process.env.TABLE_NAME as string);
  client.destroy();
  // Modules read the endpoint at import: point them at this file's DynamoDB first.
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
}, 120_000);

afterAll(async () => {
  await dynamo?.stop();
  rmSync(dbPath, { recursive: true, force: true });
});

test('an outage is a bounded 503 and the service recovers, data intact, when the database returns', async () => {
  const { handler: login } = await import('../../functions/auth/login');
  const { handler: validate } = await import('../../functions/auth/validate');
  const { makeUser, PASSWORD } = await import('../helpers/users');
  const { user, token } = await makeUser('user');
  expect((await call(validate as Handler, { token })).status).toBe(200);

  await dynamo?.stop();

  const started = Date.now();
  const down = await call(validate as Handler, { token });
  const elapsed = Date.now() - started;
  expect(down.status).toBe(503);
  expect(down.body).toEqual({ success: false, message: 'The database is temporarily unavailable; please retry shortly' });
  expect(down.headers['Retry-After']).toBe('5');
  expect(elapsed).toBeLessThan(10_000);
  const downLogin = await call(login as Handler, { method: 'POST', body: { username: user.username, password: PASSWORD } });
  expect(downLogin.status).toBe(503);

  dynamo = await startDynamo({ port, dbPath });

  // A freshly restarted DynamoDB Local can take a moment to answer its first requests: the service
  // must recover by itself (no restart, same warm handler), so poll for a bounded time.
  let back = await call(validate as Handler, { token });
  for (const deadline = Date.now() + 60_000; back.status === 503 && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 500));
    back = await call(validate as Handler, { token });
  }
  expect(back.status).toBe(200);
  expect(back.body.user.id).toBe(user.id);
  const relogin = await call(login as Handler, { method: 'POST', body: { username: user.username, password: PASSWORD } });
  expect(relogin.status).toBe(200);
}, 180_000);
