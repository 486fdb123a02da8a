/**
 * Streamed completions as OpenAI clients see them: the official `openai` package with `stream: true`
 * through the local front door, which sends POST /v1/chat/completions to the response-streaming
 * function behind its local function URL (local/lambda-url.ts), as CloudFront does once deployed. The
 * budgets are read back from the table: what a stream cost is what its key spent, and no reservation
 * outlives its stream, however it ended.
 */
import OpenAI from 'openai';
import { http, loginAsAdmin } from './http';

/**
 * Models no other e2e or browser file calls: the emulator's faults below are keyed by model and run
 * beside the other files' calls, so on a model they share a fault could hit another file's stream
 * (and this file's call go unfaulted). The dedicated endpoint is this file's own by its name.
 */
const MANAGED_MODEL = 'anthropic.claude-haiku-4-5-20251001-v1:0';
const HOSTED_MODEL = 'google/gemma-2-9b-it';
const suffix = Math.random().toString(36).slice(2, 8);
const names = { managed: `st-managed-${suffix}`, hosted: `st-hosted-${suffix}`, dedicated: `st-dedicated-${suffix}` };
const PROMPT = 'Tell me something about streams in three short sentences';
/**
 * A prompt the emulator answers at length (local/emulator/chat.ts): as many words as the call's output
 * bound allows, one chunk each. The cut-off test hangs up after three of them; with the short answer
 * above (about 25 chunks, 1 s under `slow-stream`) a hang-up that reached the function late, on a
 * loaded machine, found the answer already produced, and the estimate of a cut stream (the input's
 * bound, charged for want of the platform's usage) came out above the whole answer's cost.
 */
const LONG_PROMPT = 'Tell me about streams at length';

let admin: string;

const door = () => process.env.E2E_FRONT_DOOR_URL as string;
const clientFor = (apiKey: string) => new OpenAI({ baseURL: `${door()}/v1`, apiKey, maxRetries: 0, timeout: 30_000 });

async function newKey(body: Record<string, unknown> = {}): Promise<{ id: string; client: OpenAI }> {
  const res = await http('POST', '/api/keys', { token: admin, body: { name: `stream-${suffix}`, ...body } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, client: clientFor(res.body.key as string) };
}

/** A key's month as the table holds it: what it spent and what is still reserved. */
async function readKeySpend(keyId: string) {
  process.env.TABLE_NAME = process.env.E2E_TABLE_NAME;
  const { readSpend, monthOf } = await import('../../tables/budgets');
  const { usdOf } = await import('../../core/money');
  const { spent, reserved } = (await readSpend([{ kind: 'key', id: keyId }], monthOf(new Date())))({ kind: 'key', id: keyId });
  return { spent_usd: usdOf(spent), reserved_usd: usdOf(reserved) };
}

/**
 * The key's spend item once its calls are settled: a /v1 call's critical path writes one pending item,
 * which the stream aggregator (polling the e2e table as under npm start) settles into the spend item a
 * batching window later (docs/architecture.md, "The metered call"). Polled for, not slept.
 */
async function spendOf(keyId: string, settled = (s: { spent_usd: number; reserved_usd: number }) => s.reserved_usd === 0 && s.spent_usd > 0) {
  let spend = await readKeySpend(keyId);
  for (let i = 0; i < 100 && !settled(spend); i++) {
    await new Promise((r) => setTimeout(r, 100));
    spend = await readKeySpend(keyId);
  }
  return spend;
}

async function fault(target: string, model: string, kind: 'slow-stream' | 'midstream') {
  const res = await fetch(`${process.env.EMULATOR_URL}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target, model, fault: kind, count: 1 }),
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  admin = await loginAsAdmin();
  const [managed, hosted, models, pricing] = await Promise.all([
    http('POST', '/api/deploy/managed', { token: admin, body: { modelId: MANAGED_MODEL, endpointName: names.managed, dryRun: false } }),
    http('POST', '/api/deploy/hosted', { token: admin, body: { modelId: HOSTED_MODEL, endpointName: names.hosted, dryRun: false } }),
    http('GET', '/api/models/dedicated?source=account&max=50', { token: admin }),
    http('GET', '/api/pricing', { token: admin }),
  ]);
  expect([managed.status, hosted.status]).toEqual([200, 200]);
  const priced = new Set<string>(pricing.body.pricing.dedicated.map((p: { instanceType: string }) => p.instanceType));
  const model = (
    models.body.models as { modelPackageArn: string; modelApprovalStatus: string; supportedRealtimeInferenceInstanceTypes: string[] }[]
  ).find((m) => m.modelApprovalStatus === 'Approved' && m.supportedRealtimeInferenceInstanceTypes.some((t) => priced.has(t)));
  if (!model) throw new Error('no approved account model package with a priced instance type');
  const instanceType = model.supportedRealtimeInferenceInstanceTypes.find((t) => priced.has(t)) as string;
  const dedicated = await http('POST', '/api/deploy/dedicated', {
    token: admin,
    body: { endpointName: names.dedicated, instanceType, modelPackageArn: model.modelPackageArn, dryRun: false },
  });
  expect(dedicated.status).toBe(200);
}, 60_000);

test.each(['managed', 'hosted', 'dedicated'] as const)(
  'a streamed %s completion arrives in chunks that make the reply, ending with its usage and cost, which the key spent',
  async (platform) => {
    const { id, client } = await newKey();
    const { data: stream, response } = await client.chat.completions
      .create({ model: names[platform], messages: [{ role: 'user', content: PROMPT }], stream: true, stream_options: { include_usage: true } })
      .withResponse();
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-request-id')).toBeTruthy();

    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(chunks.filter((c) => c.choices[0]?.delta.content).length).toBeGreaterThan(3);
    expect(text).toContain(`You said: "${PROMPT}"`);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === names[platform])).toBe(true);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');

    const last = chunks.at(-1) as OpenAI.Chat.Completions.ChatCompletionChunk & { usage: { cost_usd: number } };
    expect(last.choices).toEqual([]);
    expect(last.usage.completion_tokens).toBeGreaterThan(0);
    expect(last.usage.total_tokens).toBe(last.usage.prompt_tokens + last.usage.completion_tokens);
    // Dedicated endpoints are paid by the hour: their calls cost nothing against a budget.
    if (platform === 'dedicated') expect(last.usage.cost_usd).toBe(0);
    else expect(last.usage.cost_usd).toBeGreaterThan(0);
    expect(await spendOf(id, (s) => s.spent_usd === last.usage.cost_usd)).toEqual({ spent_usd: last.usage.cost_usd, reserved_usd: 0 });
  },
);

test('without include_usage a stream ends with its finish reason and no usage chunk', async () => {
  const { client } = await newKey();
  const stream = await client.chat.completions.create({ model: names.managed, messages: [{ role: 'user', content: 'Hi' }], stream: true });
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop');
  expect(chunks.some((c) => c.usage)).toBe(false);
});

/** The cost of `prompt` streamed to the end on the managed model, as its usage chunk says. */
async function fullStreamCost(prompt: string): Promise<number> {
  const { client } = await newKey();
  const stream = await client.chat.completions.create({
    model: names.managed,
    messages: [{ role: 'user', content: prompt }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let cost = 0;
  for await (const chunk of stream) cost = (chunk.usage as { cost_usd?: number } | undefined)?.cost_usd ?? cost;
  return cost;
}

test('a stream the client cuts off settles to what was produced: less than the whole answer, nothing left reserved', async () => {
  const whole = await fullStreamCost(LONG_PROMPT);
  const { id, client } = await newKey({ monthly_budget_usd: 0.01 });
  await fault('ConverseStream', MANAGED_MODEL, 'slow-stream');
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model: names.managed, messages: [{ role: 'user', content: LONG_PROMPT }], stream: true, stream_options: { include_usage: true } },
    { signal: controller.signal },
  );
  let received = 0;
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta.content) received++;
    if (received === 3) {
      controller.abort();
      break;
    }
  }
  expect(received).toBe(3);

  // The settle follows the hang-up through the front door to the function, then the stream: poll for it.
  const spend = await spendOf(id);
  expect(spend.reserved_usd).toBe(0);
  expect(spend.spent_usd).toBeGreaterThan(0);
  expect(spend.spent_usd).toBeLessThan(whole);
});

test.each([
  ['managed', 'ConverseStream', MANAGED_MODEL],
  ['hosted', 'chat.completions', HOSTED_MODEL],
  ['dedicated', 'InvokeEndpointWithResponseStream', names.dedicated],
] as const)('a %s platform failing mid-stream is the SDK’s APIError after the first chunks, and the call settles', async (platform, op, model) => {
  const { id, client } = await newKey({ monthly_budget_usd: 1 });
  await fault(op, model, 'midstream');
  const stream = await client.chat.completions.create({ model: names[platform], messages: [{ role: 'user', content: PROMPT }], stream: true });
  let text = '';
  const err = await (async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  })().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.APIError);
  expect((err as InstanceType<typeof OpenAI.APIError>).message).toMatch(new RegExp(`${platform} platform failed while answering`));
  expect(text.length).toBeGreaterThan(0);
  const spend = await spendOf(id, (s) => s.reserved_usd === 0 && (platform === 'dedicated' || s.spent_usd > 0));
  expect(spend.reserved_usd).toBe(0);
  if (platform !== 'dedicated') expect(spend.spent_usd).toBeGreaterThan(0);
});

test('a stream the budget cannot cover is refused before it starts: the SDK’s RateLimitError with code budget_exceeded', async () => {
  const { client } = await newKey({ monthly_budget_usd: 0.000001 });
  const err = await client.chat.completions
    .create({ model: names.managed, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 500, stream: true })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(OpenAI.RateLimitError);
  expect((err as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('budget_exceeded');
});
