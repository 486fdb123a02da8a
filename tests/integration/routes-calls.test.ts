import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { config } from '../../core/config';
import { nanosOf } from '../../core/money';
import { handler as completions } from '../../functions/gateway/completions';
import { handler as embeddings } from '../../functions/gateway/embeddings';
import { handler as messages } from '../../functions/gateway/messages';
import { handler as listModels } from '../../functions/gateway/models';
import { handler as responses } from '../../functions/gateway/responses';
import { handler as createKey } from '../../functions/keys/create';
import { handler as createRoute } from '../../functions/routes/create';
import { handler as getRoute } from '../../functions/routes/get';
import { handler as updateRoute } from '../../functions/routes/update';
import { handler as deleteRoute } from '../../functions/routes/delete';
import { DbMeter } from '../../bench/harness';
import { monthOf, readSpend } from '../../tables/budgets';
import { pendingCallsOf } from '../../tables/calls';
import type { Resource } from '../../tables/resources';
import { db } from '../../tables/client';
import { coolDown, getRoute as readRoute, replaceRoute, targetResources, type RouteFailure } from '../../tables/routes';
import { call, type Handler } from '../helpers/invoke';
import { drainStream } from '../helpers/stream';
import { makeUser } from '../helpers/users';
import { dedicatedResource, listed, putResource } from './chat-fixtures';

/**
 * Calls through a route on every /v1 dialect, streamed and not: the fallback on each failure retry_on
 * names, before the first byte only; cooldowns every instance shares; what is answered when nothing is
 * left; access; money (each attempt its own metered call). And the direct call a platform throttles:
 * 429 rate_limit_exceeded with Retry-After.
 *
 * The emulator's faults are shared by every test file running at once, so the faulted models here are
 * ones no other file calls: a dedicated endpoint of this file's own (faults match its name), the
 * hosted Llama 3.1 70B and Bedrock's Llama 4 Maverick (through its US profile).
 */

jest.setTimeout(60_000);

const MAVERICK = 'meta.llama4-maverick-17b-instruct-v1:0';
const HOSTED_70B = 'meta/llama-3.1-70b-instruct';
const TEI_IMAGE = '683313688378.dkr.ecr.us-east-1.amazonaws.com/tei:2.0.1-tei1.4.0-gpu-py310-cu122-ubuntu22.04';
const DEDICATED_CHAT = { chat: true, stream: true, tools: true, jsonOutput: true, imageInput: false, embeddings: false };

let admin: Awaited<ReturnType<typeof makeUser>>;
let owner: Awaited<ReturnType<typeof makeUser>>;
let key: string;
/** Chat: a dedicated endpoint that the faults hit, a hosted and a managed model that answer, one not in service. */
let endpoint: Resource;
let hosted: Resource;
let maverick: Resource;
let updating: Resource;
/** Embeddings: a TEI endpoint the faults hit, Titan that answers, one not in service. */
let tei: Resource;
let titan: Resource;
let titanUpdating: Resource;

const emulator = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${process.env.EMULATOR_URL}/_emulator${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await res.json()) as Record<string, any>;
};

/** Runs `fn` while the model (or endpoint) fails as told, on every call; the fault is removed afterwards. */
async function whileFaulted<T>(model: string, fault: string, fn: () => Promise<T>, count?: number): Promise<T> {
  const { id } = await emulator('POST', '/faults', { target: '*', model, fault, ...(count && { count }) });
  try {
    return await fn();
  } finally {
    await emulator('DELETE', `/faults/${id}`);
  }
}

/**
 * Runs `fn` while `model` throttles every call of operation `target` (this file's calls only, where the
 * platform signs them); the calls the fault answered. An endpoint's fault names its invocation: a
 * failure on an endpoint is followed by a DescribeEndpoint of it (is it still in service?).
 */
async function throttled<T>(model: string, fn: () => Promise<T>, target = '*'): Promise<{ result: T; asked: number }> {
  const caller = model === HOSTED_70B ? undefined : process.env.SERVICE_CLOUD_ACCESS_KEY_ID;
  const { id } = await emulator('POST', '/faults', { target, model, fault: '429', ...(caller && { caller }) });
  try {
    const result = await fn();
    const fault = ((await emulator('GET', '/faults')).faults as { id: string; hits: number }[]).find((f) => f.id === id);
    return { result, asked: fault?.hits ?? 0 };
  } finally {
    await emulator('DELETE', `/faults/${id}`);
  }
}

const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

async function route(targets: Resource[], fields: Record<string, unknown> = {}) {
  const res = await call(createRoute as Handler, {
    method: 'POST',
    token: admin.token,
    body: { name: unique('rt'), strategy: 'priority', targets: targets.map((t) => ({ resource_id: t.id })), ...fields },
  });
  if (res.status !== 201) throw new Error(`route not created: ${res.raw}`);
  return res.body.route as { id: string; name: string };
}

type Dialect = 'chat' | 'responses' | 'messages' | 'embeddings';
const HANDLERS = { chat: completions, responses, messages, embeddings } as const;

function body(dialect: Dialect, model: string, stream: boolean): Record<string, unknown> {
  switch (dialect) {
    case 'chat':
      return { model, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 30, stream };
    case 'responses':
      return { model, input: 'Hello there', max_output_tokens: 30, stream };
    case 'messages':
      return { model, messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 30, stream };
    case 'embeddings':
      return { model, input: 'Hello there' };
  }
}

const ask = (dialect: Dialect, model: string, stream = false, withKey = key) =>
  call(HANDLERS[dialect] as Handler, {
    method: 'POST',
    headers: dialect === 'messages' ? { 'x-api-key': withKey, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${withKey}` },
    body: body(dialect, model, stream),
  });

beforeAll(async () => {
  [admin, owner] = await Promise.all([makeUser('admin'), makeUser('user')]);
  const created = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'routes', monthly_budget_usd: 100 } });
  key = created.body.key as string;
  const profile = {
    id: `us.${MAVERICK}`,
    arn: `arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.${MAVERICK}`,
    type: 'SYSTEM_DEFINED' as const,
    regions: ['us-east-1', 'us-east-2', 'us-west-2'],
    priced_as: MAVERICK,
  };
  [endpoint, hosted, maverick, updating, tei, titan, titanUpdating] = await Promise.all([
    listed(dedicatedResource({ capabilities: DEDICATED_CHAT })),
    listed(putResource({ type: 'hosted', model_id: HOSTED_70B, model_name: HOSTED_70B })),
    listed(putResource({ type: 'managed', model_id: MAVERICK, model_name: MAVERICK, inference_profile: profile })),
    putResource({ type: 'managed', model_id: MAVERICK, model_name: MAVERICK, status: 'Updating' }),
    dedicatedResource({ model_name: 'tei', inference_image: TEI_IMAGE }, { image: TEI_IMAGE }),
    putResource({ type: 'managed', model_id: 'amazon.titan-embed-text-v2:0', model_name: 'titan' }),
    putResource({ type: 'managed', model_id: 'amazon.titan-embed-text-v2:0', model_name: 'titan', status: 'Updating' }),
  ]);
});

describe('a fallback on each failure retry_on names, in each dialect, streamed and not', () => {
  const CASES: [Dialect, boolean][] = [
    ['chat', false],
    ['chat', true],
    ['responses', false],
    ['responses', true],
    ['messages', false],
    ['messages', true],
    ['embeddings', false],
  ];
  /** How each failure is made: a fault on the endpoint the route tries first, or a first target that is not in service. */
  const FAILURES: [RouteFailure, string | undefined][] = [
    ['throttled', '429'],
    ['unavailable', '500'],
    ['timeout', 'timeout'],
    ['context_window', 'context'],
    ['not_in_service', undefined],
  ];

  test.each(FAILURES)('%s: the next target answers, named in x-model-ops-resource, after 2 attempts', async (failure, fault) => {
    const run = () =>
      Promise.all(
        CASES.map(async ([dialect, stream]) => {
          const embeds = dialect === 'embeddings';
          const first = fault ? (embeds ? tei : endpoint) : embeds ? titanUpdating : updating;
          const second = embeds ? titan : hosted;
          // A route each, so that one case's cooldown does not spare another case its failure.
          const { name } = await route([first, second], { retry_on: [failure] });
          const res = await ask(dialect, name, stream);
          return { dialect, stream, res, second };
        }),
      );
    const results = fault ? await whileFaulted(endpoint.endpoint_name, fault, () => whileFaulted(tei.endpoint_name, fault, run)) : await run();
    for (const { dialect, stream, res, second } of results) {
      expect({ dialect, stream, status: res.status, raw: res.status === 200 ? '' : res.raw }).toEqual({ dialect, stream, status: 200, raw: '' });
      expect(res.headers['x-model-ops-resource']).toBe(second.endpoint_name);
      expect(res.headers['x-model-ops-attempts']).toBe('2');
      if (stream) expect(res.raw).toMatch(/Hello/);
    }
  });

  test('a failure retry_on leaves out is answered as it is, with no fallback', async () => {
    const { name } = await route([endpoint, hosted], { retry_on: ['timeout'] });
    const res = await whileFaulted(endpoint.endpoint_name, '500', () => ask('chat', name));
    expect(res.status).toBe(502);
    expect(res.body.error.type).toBe('api_error');
  });

  test('after the first byte it never falls over: the stream ends with the error, after one attempt', async () => {
    const { name } = await route([endpoint, hosted]);
    const res = await whileFaulted(endpoint.endpoint_name, 'midstream', () => ask('chat', name, true));
    expect(res.status).toBe(200);
    expect(res.headers['x-model-ops-resource']).toBe(endpoint.endpoint_name);
    expect(res.headers['x-model-ops-attempts']).toBe('1');
    expect(res.raw).toMatch(/"error"/);
  });
});

describe('a throttled target is asked once before the route falls over (no client retry first)', () => {
  test.each([
    ['Bedrock', () => [maverick, hosted] as const, MAVERICK, false],
    ['Bedrock, streamed', () => [maverick, hosted] as const, MAVERICK, true],
    ['the hosted platform', () => [hosted, maverick] as const, HOSTED_70B, false],
    ['the hosted platform, streamed', () => [hosted, maverick] as const, HOSTED_70B, true],
    ['a dedicated endpoint', () => [endpoint, hosted] as const, undefined, false],
    ['a dedicated endpoint, streamed', () => [endpoint, hosted] as const, undefined, true],
  ] as const)('on %s: one request to the first target, then the second answers', async (_on, targets, model, stream) => {
    const [first, second] = targets();
    const { name } = await route([first, second]);
    const operation = model ? '*' : stream ? 'InvokeEndpointWithResponseStream' : 'InvokeEndpoint';
    const { result: res, asked } = await throttled(model ?? first.endpoint_name, () => ask('chat', name, stream), operation);
    expect(res.status).toBe(200);
    expect(res.headers).toMatchObject({ 'x-model-ops-resource': second.endpoint_name, 'x-model-ops-attempts': '2' });
    expect(asked).toBe(1);
  });

  test('on embeddings too', async () => {
    const { name } = await route([tei, titan]);
    const { result: res, asked } = await throttled(tei.endpoint_name, () => ask('embeddings', name), 'InvokeEndpoint');
    expect(res.headers).toMatchObject({ 'x-model-ops-resource': titan.endpoint_name, 'x-model-ops-attempts': '2' });
    expect(asked).toBe(1);
  });

  test('the client still retries a throttle where nothing stands behind: a direct call, the last target, a route that does not fall over on it', async () => {
    const direct = await throttled(MAVERICK, () => ask('chat', maverick.endpoint_name));
    expect(direct.result.status).toBe(429);
    expect(direct.asked).toBe(config.upstream.maxAttempts);

    const alone = await route([maverick]);
    expect((await throttled(MAVERICK, () => ask('chat', alone.name))).asked).toBe(config.upstream.maxAttempts);

    const notOnThrottling = await route([maverick, hosted], { retry_on: ['unavailable'] });
    expect((await throttled(MAVERICK, () => ask('chat', notOnThrottling.name))).asked).toBe(config.upstream.maxAttempts);
  });
});

describe('cooldowns', () => {
  test('a target that failed cools down for cooldown_seconds, shown on the route, and the next call skips it without asking it', async () => {
    const created = await route([endpoint, hosted], { cooldown_seconds: 120 });
    const failed = await whileFaulted(endpoint.endpoint_name, '429', () => ask('chat', created.name));
    expect(failed.headers['x-model-ops-attempts']).toBe('2');
    const shown = (await call(getRoute as Handler, { token: admin.token, pathParameters: { routeId: created.id } })).body.route;
    expect(shown.targets[0]).toMatchObject({ resource_id: endpoint.id, cooldown_reason: 'throttled' });
    const left = Date.parse(shown.targets[0].cooldown_until) - Date.now();
    expect(left).toBeGreaterThan(60_000);
    expect(left).toBeLessThanOrEqual(120_000);
    // Had the next call asked the cooling target, this fault would have answered it (the run's emulator
    // counts every file's InvokeEndpoint calls; the fault counts this endpoint's alone).
    const { result: next, asked } = await throttled(endpoint.endpoint_name, () => ask('chat', created.name), 'InvokeEndpoint');
    expect(next.headers).toMatchObject({ 'x-model-ops-resource': hosted.endpoint_name, 'x-model-ops-attempts': '1' });
    expect(asked).toBe(0);
  });

  test('a cooldown another function instance wrote is honoured by this one at its next call, its route already in memory', async () => {
    const created = await route([hosted, maverick]);
    // This instance has called the route: it remembers the route and its targets (not their cooldowns).
    expect((await ask('chat', created.name)).headers['x-model-ops-resource']).toBe(hosted.endpoint_name);
    // Another instance (its own process, its own memory) saw the first target throttle: all it shares is the table.
    await coolDown(created.id, hosted.id, { until: Date.now() + 60_000, reason: 'throttled' });
    const res = await ask('chat', created.name);
    expect(res.headers).toMatchObject({ 'x-model-ops-resource': maverick.endpoint_name, 'x-model-ops-attempts': '1' });
  });

  test('when every target is cooling down or failed: 429 if all throttled, else 503, Retry-After the shortest cooldown left, in the dialect', async () => {
    const throttled = await route([endpoint, hosted], { cooldown_seconds: 40 });
    // Both targets throttled a moment ago (as other instances would have recorded it): nothing is asked.
    await coolDown(throttled.id, endpoint.id, { until: Date.now() + 40_000, reason: 'throttled' });
    await coolDown(throttled.id, hosted.id, { until: Date.now() + 20_000, reason: 'throttled' });
    const openai = await ask('chat', throttled.name);
    expect(openai.status).toBe(429);
    expect(openai.body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'requests' });
    expect(Number(openai.headers['Retry-After'])).toBeGreaterThan(10);
    expect(Number(openai.headers['Retry-After'])).toBeLessThanOrEqual(20);
    const anthropic = await ask('messages', throttled.name);
    expect(anthropic.status).toBe(429);
    expect(anthropic.body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });

    const mixed = await route([updating, endpoint], { cooldown_seconds: 30 });
    const res = await whileFaulted(endpoint.endpoint_name, '429', () => ask('chat', mixed.name));
    expect(res.status).toBe(503);
    expect(Number(res.headers['Retry-After'])).toBeGreaterThanOrEqual(29);
    expect(Number(res.headers['Retry-After'])).toBeLessThanOrEqual(30);
  });
});

describe('what a call through a route reads', () => {
  const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'TransactGetItemsCommand']);
  /** The keys (PK) a call reads, and its sequential DynamoDB round trips, measured on the service's own client. */
  async function readsOf(fn: () => Promise<{ status: number }>) {
    const meter = new DbMeter();
    meter.install(db);
    meter.record = true;
    try {
      const { result, meter: seen } = await meter.measure(fn);
      expect(result.status).toBe(200);
      const keys = seen.records
        .filter((r) => READS.has(r.command))
        .flatMap((r): string[] =>
          r.command === 'BatchGetItemCommand'
            ? Object.values(r.input.RequestItems as Record<string, { Keys: { PK: string }[] }>).flatMap((t) => t.Keys.map((k) => k.PK))
            : [String(r.input.Key?.PK ?? r.input.ExpressionAttributeValues?.[':pk'] ?? r.command)],
        );
      return { keys, rounds: seen.rounds };
    } finally {
      db.middlewareStack.remove('benchDbMeter');
    }
  }

  test('on the happy path, a warm call through a route reads no more items than a direct call and the same round trips, and not the route item', async () => {
    const created = await route([maverick, hosted]);
    await ask('chat', maverick.endpoint_name);
    await ask('chat', created.name);
    const direct = await readsOf(() => ask('chat', maverick.endpoint_name));
    const routed = await readsOf(() => ask('chat', created.name));
    expect(routed.rounds).toBe(direct.rounds);
    expect(routed.keys.length).toBeLessThanOrEqual(direct.keys.length);
    expect(routed.keys.filter((k) => k.startsWith('ROUTE#'))).toEqual([]);
    // Its targets' items, which carry the route's cooldowns, are read.
    expect(routed.keys).toEqual(expect.arrayContaining([`RES#${maverick.id}`, `RES#${hosted.id}`]));
  });

  test('a cooldown is kept on the target’s resource item: another route over it and a direct call to it are not refused', async () => {
    const [cooled, other] = [await route([hosted, maverick]), await route([hosted, maverick])];
    await coolDown(cooled.id, hosted.id, { until: Date.now() + 60_000, reason: 'throttled' });
    expect((await targetResources([hosted.id])).get(hosted.id)?.cooldowns[cooled.id]).toMatchObject({ reason: 'throttled' });
    expect((await ask('chat', cooled.name)).headers['x-model-ops-resource']).toBe(maverick.endpoint_name);
    expect((await ask('chat', other.name)).headers['x-model-ops-resource']).toBe(hosted.endpoint_name);
    expect((await ask('chat', hosted.endpoint_name)).headers).toMatchObject({
      'x-model-ops-resource': hosted.endpoint_name,
      'x-model-ops-attempts': '1',
    });
    // An earlier cooldown never shortens a later one.
    await coolDown(cooled.id, hosted.id, { until: Date.now() + 1_000, reason: 'timeout' });
    const shown = (await call(getRoute as Handler, { token: admin.token, pathParameters: { routeId: cooled.id } })).body.route;
    expect(shown.targets[0]).toMatchObject({ resource_id: hosted.id, cooldown_reason: 'throttled' });
    expect(Date.parse(shown.targets[0].cooldown_until) - Date.now()).toBeGreaterThan(30_000);
  });

  test('a route changed on this instance is used as changed at once; changed on another, after ROUTE_DEFINITION_TTL_SECONDS', async () => {
    const created = await route([maverick, hosted]);
    const answeredBy = async () => (await ask('chat', created.name)).headers['x-model-ops-resource'];
    expect(await answeredBy()).toBe(maverick.endpoint_name);
    // This instance reorders the targets through the API: it forgets the definition it kept.
    const patched = await call(updateRoute as Handler, {
      method: 'PATCH',
      token: admin.token,
      pathParameters: { routeId: created.id },
      body: { targets: [{ resource_id: hosted.id }, { resource_id: maverick.id }] },
    });
    expect(patched.status).toBe(200);
    expect(await answeredBy()).toBe(hosted.endpoint_name);
    // Another instance puts them back: all this one shares with it is the table, so it keeps its definition for a while.
    const before = await readRoute(created.id);
    if (!before) throw new Error('the route is not in the table');
    await replaceRoute(before, { ...before, targets: [...before.targets].reverse(), updated_at: new Date().toISOString() });
    expect(await answeredBy()).toBe(hosted.endpoint_name);
    const now = Date.now();
    const later = jest.spyOn(Date, 'now').mockImplementation(() => now + config.routes.definitionSeconds * 1000 + 1);
    try {
      expect(await answeredBy()).toBe(maverick.endpoint_name);
    } finally {
      later.mockRestore();
    }
    // Kept again from now (read with the clock back), then deleted on this instance: its name names nothing at once.
    expect(await answeredBy()).toBe(maverick.endpoint_name);
    expect((await call(deleteRoute as Handler, { method: 'DELETE', token: admin.token, pathParameters: { routeId: created.id } })).status).toBe(200);
    const gone = await ask('chat', created.name);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'model_not_found' });
  });
});

describe('choosing a target', () => {
  test('priority: the first target answers every call while it is healthy', async () => {
    const { name } = await route([maverick, hosted]);
    const answered = await Promise.all(Array.from({ length: 5 }, () => ask('chat', name)));
    expect(answered.map((r) => r.headers['x-model-ops-resource'])).toEqual(Array(5).fill(maverick.endpoint_name));
  });

  test('weighted: 60 calls split by the weights 3:1 (live check; the 1,000-call split is the chooser’s unit test)', async () => {
    const { name } = await call(createRoute as Handler, {
      method: 'POST',
      token: admin.token,
      body: {
        name: unique('weighted'),
        strategy: 'weighted',
        targets: [
          { resource_id: hosted.id, weight: 3 },
          { resource_id: maverick.id, weight: 1 },
        ],
      },
    }).then((r) => r.body.route);
    const answered = await Promise.all(Array.from({ length: 60 }, () => ask('chat', name)));
    expect(answered.every((r) => r.status === 200)).toBe(true);
    const heavy = answered.filter((r) => r.headers['x-model-ops-resource'] === hosted.endpoint_name).length;
    // Binomial(60, 0.75): mean 45, standard deviation 3.4; these bounds are more than 4 deviations out.
    expect(heavy).toBeGreaterThanOrEqual(30);
    expect(heavy).toBeLessThanOrEqual(58);
  });
});

describe('access, listing and money', () => {
  test('a key limited to some targets is tried on those only; one limited to none gets 404 model_not_found', async () => {
    const { name } = await route([endpoint, hosted]);
    const limited = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'one', resource_ids: [hosted.id] } });
    const res = await whileFaulted(endpoint.endpoint_name, '429', () => ask('chat', name, false, limited.body.key));
    expect(res.headers).toMatchObject({ 'x-model-ops-resource': hosted.endpoint_name, 'x-model-ops-attempts': '1' });
    const none = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'none', resource_ids: [titan.id] } });
    const refused = await ask('chat', name, false, none.body.key);
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('model_not_found');
  });

  test('GET /v1/models lists a route with the capabilities all its targets share', async () => {
    const { name } = await route([endpoint, maverick]);
    const res = await call(listModels as Handler, { headers: { authorization: `Bearer ${key}` } });
    const listed = res.body.data.find((m: { id: string }) => m.id === name);
    expect(listed).toMatchObject({ object: 'model', owned_by: 'route', capabilities: { chat: true, embeddings: false, image_input: false } });
  });

  test('the usage record names the route and the resource that answered, at that resource’s price', async () => {
    const created = await route([updating, maverick]);
    const res = await ask('chat', created.name);
    const pending = (await pendingCallsOf(owner.user.id)).find((c) => c.route?.id === created.id);
    expect(pending).toMatchObject({ route: { id: created.id, name: created.name }, resource: { id: maverick.id, type: 'managed' } });
    expect(pending?.cost).toBe(nanosOf(Number(res.headers['x-model-ops-cost-usd'])));
  });

  test('100 concurrent calls, the first target throttling half of them: spend equals the sum of the answers, no hold is left', async () => {
    const user = await makeUser('user');
    const own = await call(createKey as Handler, { method: 'POST', token: user.token, body: { name: 'load', monthly_budget_usd: 50 } });
    const { name } = await route([hosted, maverick], { cooldown_seconds: 1 });
    // A route's first target is asked once (no client retry while another target is left): 50 faults
    // throttle the first 50 asks, which fall over to the second target.
    const answers = await whileFaulted(
      HOSTED_70B,
      '429',
      () => Promise.all(Array.from({ length: 100 }, () => ask('chat', name, false, own.body.key))),
      50,
    );
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    const fellOver = answers.filter((r) => r.headers['x-model-ops-resource'] === maverick.endpoint_name).length;
    expect(fellOver).toBeGreaterThan(0);
    expect(fellOver).toBeLessThan(100);
    const costs = answers.reduce((sum, r) => sum + nanosOf(Number(r.headers['x-model-ops-cost-usd'])), 0);
    const keyId = own.body.id as string;
    const spendOf = async () => (await readSpend([{ kind: 'key', id: keyId }], monthOf(new Date())))({ kind: 'key', id: keyId });
    await drainStream();
    expect(await spendOf()).toEqual({ spent: costs, reserved: 0 });
  });
});

describe('a direct call a platform throttles', () => {
  test.each([
    ['Bedrock (by its base model id, called through its profile)', () => maverick, MAVERICK],
    ['the hosted platform', () => hosted, HOSTED_70B],
    ['a dedicated endpoint', () => endpoint, undefined],
  ])('on %s is 429 rate_limit_exceeded with Retry-After in OpenAI’s shape', async (_what, resource, model) => {
    const res = await whileFaulted(model ?? resource().endpoint_name, '429', () => ask('chat', resource().endpoint_name), 2);
    expect(res.status).toBe(429);
    expect(res.headers['Retry-After']).toMatch(/^\d+$/);
    expect(res.body.error).toMatchObject({ code: 'rate_limit_exceeded', type: 'requests', message: expect.stringMatching(/throttling requests/) });
  });

  test('is 429 rate_limit_error in Anthropic’s shape on /v1/messages', async () => {
    const res = await whileFaulted(HOSTED_70B, '429', () => ask('messages', hosted.endpoint_name), 2);
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });
});
