/**
 * Calls that would outlive their function (issue 26, item 1). Lambda kills an invocation at its
 * timeout and nothing of it runs again, so a model call must end, and be charged, before then:
 *
 *   - a stream ends early and cleanly (finish_reason "length", usage, [DONE]) and its key is charged
 *     exactly what it produced: behind the local function URL with a short timeout (the real
 *     streaming handler, killed at the timeout as Lambda would), and on the HTTP API route;
 *   - and if the invocation dies anyway, the reservation it left expires and counts as spent at its
 *     bound, never nothing.
 *
 * The streams are slowed by the emulator's slow-stream fault on a model no other test file streams
 * (faults match by model on the shared emulator), and only ever one call at a time.
 */
import { usdOf } from '../../core/money';
import { jest } from '@jest/globals';
import OpenAI from 'openai';
import { handler as createKey } from '../../functions/keys/create';
import { handler as completions } from '../../functions/gateway/completions';
import { RESERVATION_TTL_MS } from '../../lib/budgets/reservations';
import { prepareCall } from '../../lib/calls/metered';
import { monthOf, readSpend } from '../../tables/budgets';
import { pendingCallsOf, pendingSpend } from '../../tables/calls';
import { getApiKeyRecord } from '../../tables/keys';
import type { Resource } from '../../tables/resources';
import { getUserById, publicUser } from '../../tables/users';
import { installAwsLambdaGlobal, startLambdaUrl, type LambdaUrl } from '../../local/lambda-url';
import { call, type Handler } from '../helpers/invoke';
import { PNG } from '../helpers/dialects';
import { makeUser } from '../helpers/users';
import { getTokenPrice } from '../../lib/pricing/service';
import { listed, managedResource, usProfileResource } from './chat-fixtures';

jest.setTimeout(120_000);

const MODEL = 'cohere.command-r-v1:0';
/** A model that reads images (Claude 3 Haiku). */
const VISION_MODEL = 'anthropic.claude-3-haiku-20240307-v1:0';
/** A message the emulator's model quotes back: about 300 words, several seconds at the slow-stream pace. */
const LONG = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
/** The streaming function's time: the settle margin (5 s, lib/gateway/stream.ts) and 2 s of answer. */
const FUNCTION_TIMEOUT_MS = 7_000;

let resource: Resource;
let url: LambdaUrl;

async function slowStream(model = MODEL) {
  const res = await fetch(`${process.env.EMULATOR_URL}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // Signed with this file's key only (tests/setup/table-env.ts): no other file's stream meets it.
    body: JSON.stringify({ target: 'ConverseStream', model, fault: 'slow-stream', count: 1, caller: process.env.SERVICE_CLOUD_ACCESS_KEY_ID }),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  resource = await listed(managedResource(MODEL));
  installAwsLambdaGlobal();
  const { handler } = await import('../../functions/gateway/completions-stream');
  url = await startLambdaUrl({ handler, functionName: 'chatCompletionsStream', timeoutMs: FUNCTION_TIMEOUT_MS });
});
afterAll(() => url?.close());

async function newKey(budget = 5) {
  const owner = await makeUser('user');
  const res = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'deadline', monthly_budget_usd: budget } });
  expect(res.status).toBe(201);
  return { owner, key: res.body.key as string, id: res.body.id as string };
}

/** What the key has been charged, settled or not: its spend item and its owner's calls still pending a settle. */
async function chargedTo(keyId: string, userId: string): Promise<number> {
  const owner = { kind: 'key', id: keyId } as const;
  const month = monthOf(new Date());
  const { spent } = (await readSpend([owner], month))(owner);
  return usdOf(spent + pendingSpend(await pendingCallsOf(userId), owner, month));
}

/** The chunks of a server-sent event body, and whether it ended with [DONE]. */
function events(body: string): { chunks: any[]; done: boolean } {
  const data = body
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => e.slice(6));
  return { chunks: data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d)), done: data.at(-1) === '[DONE]' };
}

describe('a stream that would outlast its function', () => {
  test('behind the function URL it ends before the function is killed, with finish_reason length, its usage and [DONE], and its key is charged what it produced', async () => {
    const { owner, key, id } = await newKey();
    await slowStream();
    const client = new OpenAI({ baseURL: `${url.url}/v1`, apiKey: key, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: resource.endpoint_name,
      messages: [{ role: 'user', content: LONG }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: any[] = [];
    for await (const chunk of stream) chunks.push(chunk);

    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    // Cut off part-way through the quoted message: its last word never came.
    expect(text).not.toContain('word299');
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['length']);
    const usage = chunks.at(-1).usage;
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.cost_usd).toBeGreaterThan(0);
    expect(await chargedTo(id, owner.user.id)).toBe(usage.cost_usd);
  });

  test('on the HTTP API route (the stream sent whole) it ends before the function’s deadline the same way, charged what it produced', async () => {
    const { owner, key, id } = await newKey();
    await slowStream();
    const res = await call(completions as Handler, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { model: resource.endpoint_name, messages: [{ role: 'user', content: LONG }], stream: true, stream_options: { include_usage: true } },
      remainingMs: FUNCTION_TIMEOUT_MS,
    });
    expect(res.status).toBe(200);
    const { chunks, done } = events(res.raw);
    expect(done).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['length']);
    const usage = chunks.at(-1).usage;
    expect(usage.cost_usd).toBeGreaterThan(0);
    expect(await chargedTo(id, owner.user.id)).toBe(usage.cost_usd);
  });

  test('a stream cut off at the deadline is charged at least the input bound it reserved: its image counts, not only its text bytes', async () => {
    const vision = await listed(managedResource(VISION_MODEL));
    const { owner, key, id } = await newKey();
    await slowStream(VISION_MODEL);
    const content = [
      { type: 'text', text: LONG },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ];
    const res = await call(completions as Handler, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { model: vision.endpoint_name, messages: [{ role: 'user', content }], stream: true, stream_options: { include_usage: true } },
      remainingMs: FUNCTION_TIMEOUT_MS,
    });
    expect(res.status).toBe(200);
    const { chunks } = events(res.raw);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['length']);
    const usage = chunks.at(-1).usage;
    // The hold's input bound: the text's bytes, 1,600 tokens for the image, and the template's allowance.
    expect(usage.prompt_tokens).toBeGreaterThanOrEqual(Buffer.byteLength(LONG) + 1_600);
    expect(await chargedTo(id, owner.user.id)).toBe(usage.cost_usd);
  });

  test('a cut-off stream that asked for caching is charged its input bound at the 1-hour cache write price its hold used, not at the input price', async () => {
    const SONNET = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
    const profile = `us.${SONNET}`;
    const sonnet = await listed(usProfileResource(SONNET, 'Claude Sonnet 4.5'));
    const { owner, key, id } = await newKey();
    await slowStream(profile);
    const res = await call(completions as Handler, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: {
        model: sonnet.endpoint_name,
        messages: [{ role: 'user', content: [{ type: 'text', text: LONG, cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
        stream: true,
        stream_options: { include_usage: true },
      },
      remainingMs: FUNCTION_TIMEOUT_MS,
    });
    expect(res.status).toBe(200);
    const { chunks } = events(res.raw);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['length']);
    const usage = chunks.at(-1).usage;
    const price = await getTokenPrice('managed', profile);
    // Its input bound (at least the text's bytes) as 1-hour writes: twice the input price for Claude.
    expect(price.cache_write_1h_per_1k).toBe(2 * price.input_per_1k);
    expect(usage.cost_usd).toBeGreaterThanOrEqual((Buffer.byteLength(LONG) * (price.cache_write_1h_per_1k as number)) / 1000);
    expect(await chargedTo(id, owner.user.id)).toBe(usage.cost_usd);
  });
});

test('a call whose function died before it settled leaves a reservation that, once expired, is charged its bound by the next call, never 0', async () => {
  const { owner, id } = await newKey();
  const key = (await getApiKeyRecord(id))!;
  const user = publicUser((await getUserById(owner.user.id))!);
  const request = { messages: [{ role: 'user' as const, content: 'Hello there' }] };
  // Mid-month, so the expiry five minutes on falls in the same month's item.
  const today = new Date();
  const t0 = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 15, 12));
  // Reserved, then never settled: what a killed invocation leaves behind.
  const killed = await prepareCall({ payer: { user, key, memberships: [] }, resource, request, now: t0 });
  const bound = usdOf(killed.reservations[0]!.amount);
  expect(bound).toBeGreaterThan(0);
  const spendItem = { kind: 'key', id } as const;
  const spend = async () => {
    const { spent, reserved } = (await readSpend([spendItem], monthOf(t0)))(spendItem);
    return { spent_usd: usdOf(spent), reserved_usd: usdOf(reserved) };
  };
  expect(await spend()).toEqual({ spent_usd: 0, reserved_usd: bound });

  // The key's next call after the expiry charges it its bound, beside its own reservation.
  const expired = new Date(t0.getTime() + RESERVATION_TTL_MS + 1_000);
  const next = await prepareCall({ payer: { user, key, memberships: [] }, resource, request, now: expired });
  expect(await spend()).toEqual({ spent_usd: bound, reserved_usd: usdOf(next.reservations[0]!.amount) });
});
