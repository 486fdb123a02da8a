/**
 * Budget alerts (issue 34): channels (admins), thresholds claimed once per scope and month from the
 * table's stream, deliveries signed, retried and never repeated. Webhooks go to receivers on loopback
 * in this process; SNS and SES to the emulator through the real SDK clients. The stream is read from
 * DynamoDB Local as Lambda's two event source mappings would: the usage aggregator (which settles the
 * calls) and the alert deliverer (functions/alerts/stream.yml), each with positions of its own.
 */
import { jest } from '@jest/globals';
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBRecord } from 'aws-lambda';
import { handler as createChannelFn } from '../../functions/alerts/create-channel';
import { handler as listChannelsFn } from '../../functions/alerts/list-channels';
import { handler as deleteChannelFn } from '../../functions/alerts/delete-channel';
import { handler as testChannelFn } from '../../functions/alerts/test-channel';
import { handler as listDeliveriesFn } from '../../functions/alerts/list-deliveries';
import { handler as deliverFn } from '../../functions/alerts/deliver';
import { handler as updateKeyFn } from '../../functions/keys/update';
import { nanosOf, usdOf } from '../../core/money';
import { monthOf, readSpend } from '../../tables/budgets';
import { localDynamoClient } from '../../local/runtime';
import { StreamReader, alertsEventSource } from '../../local/stream-poller';
import type { Resource } from '../../tables/resources';
import { call, lambdaContext, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { listed, managedResource } from './chat-fixtures';
import { completeOn, keyOf, type Caller } from './levels-fixtures';

jest.setTimeout(120_000);

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: records every request; answers 500 to the first `failures`. */
function receiver(failures = 0) {
  const requests: Received[] = [];
  let left = failures;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(left-- > 0 ? 500 : 204).end();
    });
  });
  const ready = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`)),
  );
  return { requests, ready, close: () => new Promise((r) => server.close(r)) };
}

const dynamo = localDynamoClient(process.env.DYNAMODB_ENDPOINT as string);
const delivered: DynamoDBRecord[][] = [];
/** The deliverer's mapping: like Lambda, a failed batch is delivered again (up to 3 more times). */
const alertsReader = new StreamReader({
  dynamo,
  endpoint: process.env.DYNAMODB_ENDPOINT as string,
  table: process.env.TABLE_NAME as string,
  handler: async (event, context) => {
    delivered.push(event.Records);
    await deliverFn(event, context);
  },
  settings: { ...alertsEventSource(), maximumRetryAttempts: 3 },
  onGiveUp: 'throw',
});

/** Settles the calls (usage aggregator), then runs the alert deliverer until the stream is caught up (claims come back as events). */
async function drainAll(): Promise<void> {
  await drainStream();
  while ((await alertsReader.poll()) > 0);
}

let admin: Caller;
let owner: Caller;
let resource: Resource;
const good = receiver();
const flaky = receiver(4);
const complete = completeOn(() => resource);

beforeAll(async () => {
  [admin, owner, resource] = await Promise.all([makeUser('admin'), makeUser('user'), listed(managedResource())]);
  await Promise.all([good.ready, flaky.ready]);
});

afterAll(async () => {
  alertsReader.close();
  dynamo.destroy();
  await Promise.all([good.close(), flaky.close()]);
});

const createChannel = (body: Record<string, unknown>, token = admin.token) => call(createChannelFn as Handler, { method: 'POST', token, body });
const hmac = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const emulatorState = async () => (await fetch(`${process.env.SERVICE_CLOUD_ENDPOINT}/_emulator/state`)).json() as Promise<Record<string, unknown[]>>;

let goodSecret: string;
let goodId: string;

describe('channels', () => {
  test('a webhook created without a secret gets one, shown once; the list shows only a masked hint', async () => {
    const res = await createChannel({ name: 'ops hook', type: 'webhook', url: await good.ready });
    expect(res.status).toBe(201);
    const { channel } = res.body;
    expect(channel).toMatchObject({ name: 'ops hook', type: 'webhook', format: 'json', url: await good.ready });
    expect(channel.secret).toMatch(/^whsec_/);
    expect(channel).not.toHaveProperty('secret_sealed');
    goodSecret = channel.secret;
    goodId = channel.id;
    const list = await call(listChannelsFn as Handler, { token: admin.token });
    const listedChannel = list.body.channels.find((c: { id: string }) => c.id === goodId);
    expect(listedChannel.secret_hint).toBe(`************${goodSecret.slice(-4)}`);
    expect(JSON.stringify(list.body)).not.toContain(goodSecret);
  });

  test.each([
    ['http to a public host', 'http://example.com/hook', /must be https/],
    ['a private address', 'https://10.1.2.3/hook', /not a public address/],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data', /not a public address/],
    ['a name that resolves to loopback', 'https://localhost/hook', /not a public address/],
    ['an IPv6 unique local address', 'https://[fd00:ec2::254]/', /not a public address/],
    ['credentials in the URL', 'https://user:pw@example.com/', /credentials/],
  ])('a webhook URL to %s is refused with 400', async (_what, url, message) => {
    const res = await createChannel({ name: 'bad', type: 'webhook', url });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  test('fields of another type, and a missing target, are 400; a user is 403', async () => {
    expect((await createChannel({ name: 'x', type: 'sns', url: 'https://example.com' })).body.error).toMatch(/'url': not used by a sns channel/);
    expect((await createChannel({ name: 'x', type: 'email' })).body.error).toMatch(/Missing required field 'address'/);
    expect((await createChannel({ name: 'x', type: 'webhook', url: await good.ready }, owner.token)).status).toBe(403);
  });

  test('a test event reaches a webhook signed, an SNS topic and an SES address, each only its own channel', async () => {
    const topicArn = `arn:aws:sns:us-east-1:123456789012:alerts-${randomUUID().slice(0, 8)}`;
    const address = `ops-${randomUUID().slice(0, 8)}@example.com`;
    const sns = await createChannel({ name: 'topic', type: 'sns', topic_arn: topicArn });
    const email = await createChannel({ name: 'mail', type: 'email', address });
    expect([sns.status, email.status]).toEqual([201, 201]);
    for (const id of [goodId, sns.body.channel.id, email.body.channel.id]) {
      expect((await call(testChannelFn as Handler, { method: 'POST', token: admin.token, pathParameters: { channelId: id } })).status).toBe(202);
    }
    await drainAll();
    const tests = good.requests.filter((r) => JSON.parse(r.body).event === 'alert.test');
    expect(tests).toHaveLength(1);
    expect(tests[0]?.headers['x-model-ops-signature']).toBe(hmac(goodSecret, tests[0]?.body as string));
    const state = await emulatorState();
    const published = state.published?.filter((m) => (m as { topicArn: string }).topicArn === topicArn) as { message: string }[];
    expect(published).toHaveLength(1);
    expect(JSON.parse(published[0]?.message as string)).toMatchObject({ event: 'alert.test', channel_id: sns.body.channel.id });
    expect(state.emails?.filter((m) => (m as { to: string[] }).to.includes(address))).toHaveLength(1);
    const deliveries = await call(listDeliveriesFn as Handler, { token: admin.token });
    expect(
      deliveries.body.deliveries.filter((d: { event: string; status: string }) => d.event === 'alert.test' && d.status === 'delivered'),
    ).toHaveLength(3);
    // Only the webhook stays for what follows.
    for (const id of [sns.body.channel.id, email.body.channel.id]) {
      expect((await call(deleteChannelFn as Handler, { method: 'DELETE', token: admin.token, pathParameters: { channelId: id } })).status).toBe(200);
    }
    expect(
      (await call(deleteChannelFn as Handler, { method: 'DELETE', token: admin.token, pathParameters: { channelId: sns.body.channel.id } })).status,
    ).toBe(404);
  });
});

describe('thresholds', () => {
  test('60 concurrent calls crossing 80 % and then refused at 100 %: exactly one signed event per threshold', async () => {
    // The key spends first without a budget; then one PATCH sets a budget it has spent 79 % of, and
    // its thresholds. Holds keep a spend under its budget, so of the 60 calls the first few cross
    // 80 % and the rest are refused, which fires 100 %.
    const key = await keyOf(owner);
    const warmUp = await Promise.all(Array.from({ length: 20 }, () => complete(key.secret)));
    expect(warmUp.every((r) => r.status === 200)).toBe(true);
    await drainAll();
    const { spent } = (await readSpend([{ kind: 'key', id: key.id }], monthOf(new Date())))({ kind: 'key', id: key.id });
    const budget = Math.ceil((usdOf(spent) / 0.79) * 1e6) / 1e6;
    const set = await call(updateKeyFn as Handler, {
      method: 'PATCH',
      token: owner.token,
      pathParameters: { keyId: key.id },
      body: { monthly_budget_usd: budget, alert_thresholds: [1, 0.8] },
    });
    expect(set.status).toBe(200);
    expect(set.body.key.alert_thresholds).toEqual([0.8, 1]);
    await drainAll();
    const before = good.requests.length;

    const results = await Promise.all(Array.from({ length: 60 }, () => complete(key.secret)));
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    await drainAll();

    const mine = good.requests
      .slice(before)
      .map((r) => ({ r, e: JSON.parse(r.body) }))
      .filter(({ e }) => e.event === 'budget.threshold' && e.scope.id === key.id);
    expect(mine.map(({ e }) => e.threshold).sort()).toEqual([0.8, 1]);
    for (const { r, e } of mine) {
      expect(r.headers['x-model-ops-signature']).toBe(hmac(goodSecret, r.body));
      expect(Object.keys(e).sort()).toEqual(['at', 'budget_usd', 'event', 'id', 'period', 'scope', 'spent_usd', 'threshold']);
      expect(e).toMatchObject({ scope: { kind: 'key', id: key.id, name: 'k' }, budget_usd: budget, period: new Date().toISOString().slice(0, 7) });
    }
    const eighty = mine.find(({ e }) => e.threshold === 0.8)?.e;
    expect(nanosOf(eighty.spent_usd)).toBeGreaterThanOrEqual(Math.ceil(0.8 * nanosOf(budget)));
  });
});

describe('delivery', () => {
  test('a failing receiver is retried, within the batch and then with the batch, and delivered once; the others are not sent it again', async () => {
    const flakySecret = 'flaky-secret-0123456789';
    const res = await createChannel({ name: 'flaky', type: 'webhook', url: await flaky.ready, secret: flakySecret });
    expect(res.status).toBe(201);
    expect(res.body.channel).not.toHaveProperty('secret');
    const goodBefore = good.requests.length;
    // A threshold of a new budget: its event goes to both channels.
    const key = await keyOf(owner, { monthly_budget_usd: 0.000001 });
    expect((await complete(key.secret)).status).toBe(429);
    delivered.length = 0;
    await drainAll();
    // 3 attempts in the first delivery of the batch (all answered 500), then the batch again: 500, then 204.
    expect(flaky.requests).toHaveLength(5);
    const ids = new Set(flaky.requests.map((r) => JSON.parse(r.body).id));
    expect(ids.size).toBe(1);
    for (const r of flaky.requests) expect(r.headers['x-model-ops-signature']).toBe(hmac(flakySecret, r.body));
    const toGood = good.requests.slice(goodBefore).filter((r) => JSON.parse(r.body).id === [...ids][0]);
    expect(toGood).toHaveLength(1);
    const deliveries = await call(listDeliveriesFn as Handler, { token: admin.token });
    expect(deliveries.body.deliveries.find((d: { channel_id: string }) => d.channel_id === res.body.channel.id)).toMatchObject({
      status: 'delivered',
      attempts: 5,
      last_error: null,
    });
    // The same records once more (a redelivery after a timeout): nothing is sent again.
    const flakyCount = flaky.requests.length;
    const goodCount = good.requests.length;
    for (const records of delivered) await deliverFn({ Records: records }, lambdaContext());
    expect([flaky.requests.length, good.requests.length]).toEqual([flakyCount, goodCount]);
  });
});
