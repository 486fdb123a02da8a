/**
 * Prompt caching and service tiers as the official clients drive them, over HTTP through the local
 * front door on resources deployed through the API (issue 31, sections 4 and 5): a three-turn
 * conversation on /v1/messages with `cache_control` (a write, then reads, each priced exactly in its
 * header and on the key), the openai client reading `cached_tokens`, a call priced at its tier, and a
 * key limited to flex refused priority.
 *
 * Exact figures are taken from the shipped price entries, in nano-dollars a token:
 *   Nova Lite: input 60, output 240, cache read 15, cache write 60 (no premium for Nova);
 *   gpt-oss-120b: input 150, output 600; Flex 50 % and Priority 175 % of that, to the nano-dollar upwards.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { http, loginAsAdmin } from './http';

const suffix = Math.random().toString(36).slice(2, 8);
const names = { nova: `pc-nova-${suffix}`, oss: `pc-oss-${suffix}` };
const door = () => process.env.E2E_FRONT_DOOR_URL as string;

const NOVA = { input: 60n, output: 240n, read: 15n, write: 60n };
const OSS = { input: 150n, output: 600n };

/** A system prompt well past Nova's 1,000-token minimum, unique to this run so no earlier run's entry is read. */
const manual = `Run ${suffix}. ` + 'The service handbook says every answer must cite its section number. '.repeat(80);

/** Nano-dollars as the header writes them: the exact decimal, up to 9 places, no trailing zeros. */
function usdText(nanos: bigint): string {
  const whole = nanos / 1_000_000_000n;
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

const ceilPercent = (nanos: bigint, percent: bigint) => (nanos * percent + 99n) / 100n;

let admin: string;

async function keyFor(name: string, body: Record<string, unknown> = {}) {
  const key = await http('POST', '/api/keys', { token: admin, body: { name: `${name}-${suffix}`, ...body } });
  expect(key.status).toBe(201);
  return { key: key.body.key as string, id: key.body.id as string };
}

/** What the key's month holds, in nano-dollars (the table's exact decimal, as the API shows it). */
async function recordedNanos(keyId: string): Promise<{ requests: number; nanos: bigint }> {
  const usage = await http('GET', `/api/usage/current?keyId=${keyId}`, { token: admin });
  expect(usage.status).toBe(200);
  return { requests: usage.body.mtd.requests as number, nanos: BigInt(Math.round((usage.body.mtd.cost_usd as number) * 1e9)) };
}

beforeAll(async () => {
  admin = await loginAsAdmin();
  const deploys = await Promise.all([
    http('POST', '/api/deploy/managed', { token: admin, body: { modelId: 'amazon.nova-lite-v1:0', endpointName: names.nova, dryRun: false } }),
    http('POST', '/api/deploy/managed', { token: admin, body: { modelId: 'openai.gpt-oss-120b-1:0', endpointName: names.oss, dryRun: false } }),
  ]);
  expect(deploys.map((d) => d.status)).toEqual([200, 200]);
}, 120_000);

describe('prompt caching', () => {
  test('three turns on /v1/messages with the Anthropic client: a write, then reads, each priced exactly', async () => {
    const { key, id } = await keyFor('cache-anthropic');
    const client = new Anthropic({ apiKey: key, baseURL: door(), maxRetries: 0 });
    const system: Anthropic.TextBlockParam[] = [{ type: 'text', text: manual, cache_control: { type: 'ephemeral' } }];
    const messages: Anthropic.MessageParam[] = [];
    const turns: { usage: Anthropic.Usage; header: string | null }[] = [];
    for (const question of ['What is section 1?', 'And section 2?', 'And section 3?']) {
      messages.push({ role: 'user', content: question });
      const { data, response } = await client.messages.create({ model: names.nova, max_tokens: 50, system, messages }).withResponse();
      turns.push({ usage: data.usage, header: response.headers.get('x-model-ops-cost-usd') });
      messages.push({ role: 'assistant', content: data.content });
    }

    const [first, second, third] = turns.map((t) => t.usage);
    expect(first!.cache_creation_input_tokens).toBeGreaterThanOrEqual(1_000);
    expect(first!.cache_read_input_tokens).toBe(0);
    for (const later of [second!, third!]) {
      expect(later.cache_read_input_tokens).toBe(first!.cache_creation_input_tokens);
      expect(later.cache_creation_input_tokens).toBe(0);
    }

    const expected = turns.map(({ usage: u }) => {
      const plain = BigInt(u.input_tokens) * NOVA.input + BigInt(u.output_tokens) * NOVA.output;
      return plain + BigInt(u.cache_read_input_tokens ?? 0) * NOVA.read + BigInt(u.cache_creation_input_tokens ?? 0) * NOVA.write;
    });
    expect(turns.map((t) => t.header)).toEqual(expected.map(usdText));
    // A read costs a quarter of the same tokens sent plain: the second turn is cheaper than the first.
    expect(expected[1]!).toBeLessThan(expected[0]!);
    expect(await recordedNanos(id)).toEqual({ requests: 3, nanos: expected.reduce((a, b) => a + b, 0n) });
  });

  test('the openai client reads usage.prompt_tokens_details.cached_tokens from a cached content part', async () => {
    const { key } = await keyFor('cache-openai');
    const openai = new OpenAI({ baseURL: `${door()}/v1`, apiKey: key, maxRetries: 0, timeout: 30_000 });
    const text = `OpenAI ${manual}`;
    // cache_control on a content part is LiteLLM's extension, which the openai types do not name.
    const system = {
      role: 'system',
      content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }],
    } as unknown as OpenAI.ChatCompletionSystemMessageParam;
    const ask = (question: string) =>
      openai.chat.completions.create({ model: names.nova, max_tokens: 50, messages: [system, { role: 'user', content: question }] });
    const first = await ask('What is section 4?');
    const second = await ask('And section 5?');
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(second.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(1_000);
    // prompt_tokens counts the whole prompt, cached tokens included.
    expect(second.usage!.prompt_tokens).toBeGreaterThan(second.usage!.prompt_tokens_details!.cached_tokens!);
  });
});

describe('service tiers', () => {
  test.each([
    ['flex', 50n],
    ['priority', 175n],
    ['default', 100n],
  ] as const)('a %s call is served at that tier and priced at it', async (tier, percent) => {
    const { key, id } = await keyFor(`tier-${tier}`);
    const openai = new OpenAI({ baseURL: `${door()}/v1`, apiKey: key, maxRetries: 0, timeout: 30_000 });
    const { data, response } = await openai.chat.completions
      .create({ model: names.oss, max_tokens: 40, service_tier: tier, messages: [{ role: 'user', content: 'Summarise the report' }] })
      .withResponse();
    expect(data.service_tier).toBe(tier);
    const standard = BigInt(data.usage!.prompt_tokens) * OSS.input + BigInt(data.usage!.completion_tokens) * OSS.output;
    const expected = ceilPercent(standard, percent);
    expect(response.headers.get('x-model-ops-cost-usd')).toBe(usdText(expected));
    expect(await recordedNanos(id)).toEqual({ requests: 1, nanos: expected });
  });

  test('a key limited to flex is refused priority (403 in OpenAI’s shape) and runs on flex when it names no tier', async () => {
    const { key, id } = await keyFor('flex-only', { allowed_service_tiers: ['flex'] });
    const openai = new OpenAI({ baseURL: `${door()}/v1`, apiKey: key, maxRetries: 0, timeout: 30_000 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Label this row' }];
    const refused = await openai.chat.completions
      .create({ model: names.oss, max_tokens: 20, service_tier: 'priority', messages })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect((refused as InstanceType<typeof OpenAI.PermissionDeniedError>).status).toBe(403);
    expect((refused as InstanceType<typeof OpenAI.PermissionDeniedError>).error).toMatchObject({
      code: 'service_tier_not_allowed',
      param: 'service_tier',
      type: expect.any(String),
      message: expect.stringContaining('flex'),
    });

    const served = await openai.chat.completions.create({ model: names.oss, max_tokens: 20, messages });
    expect(served.service_tier).toBe('flex');
    // The refused call cost nothing and held nothing: only the flex call is on the key.
    expect((await recordedNanos(id)).requests).toBe(1);
  });
});
