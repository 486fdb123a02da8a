/**
 * The Bedrock-compatible door (issue 35, section 4), through the official AWS SDK
 * (@aws-sdk/client-bedrock-runtime) with a key as its bearer token, over HTTP: Converse as API Gateway
 * routes it, ConverseStream behind its function URL (local/lambda-url.ts, as CloudFront routes it),
 * both in this process against DynamoDB Local and the emulator.
 */
import { jest } from '@jest/globals';
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  InternalServerException,
  type InvokeModelCommandOutput,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  CountTokensCommand,
  ResourceNotFoundException,
  ValidationException,
  type ConverseStreamOutput,
  type TokenUsage,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { nanosOf, usdOf, type Nanos } from '../../core/money';
import { handler as converse } from '../../functions/bedrock/converse';
import { handler as invoke } from '../../functions/bedrock/invoke';
import { handler as countTokens } from '../../functions/bedrock/count-tokens';
import { handler as notFound } from '../../functions/system/not-found';
import { installAwsLambdaGlobal, startLambdaUrl, type LambdaUrl } from '../../local/lambda-url';
import { getTokenPrice, tokenCost } from '../../lib/pricing/service';
import type { Resource } from '../../tables/resources';
import { startDoor } from '../helpers/door';
import type { Handler } from '../helpers/invoke';
import { keysOf } from '../helpers/keys';
import { makeUser } from '../helpers/users';
import { listed, managedResource, MANAGED_MODEL, withModelFault } from './chat-fixtures';

jest.setTimeout(60_000);

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

let resource: Resource;
let url: LambdaUrl;
let invokeUrl: LambdaUrl;
/** A Claude that reasons (Claude Code's thinking), through its US profile. */
let sonnet: Resource;
let door: Awaited<ReturnType<typeof startDoor>>;
let owner: Awaited<ReturnType<typeof makeUser>>;
/** A key that pays for its calls, and one whose budget cannot cover any. */
let paying: { key: string; id: string };
let broke: { key: string; id: string };
/** A key that makes only InvokeModel calls, so that its spend is theirs alone. */
let claudeCode: { key: string; id: string };

let keys: ReturnType<typeof keysOf>;
const spentOf = (id: string) => keys.spentOf(id);

/** A client as an app constructs one for a Bedrock API key, pointed at the door (HTTP/1.1: the door is plain http). */
function client(key: string) {
  const bedrock = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: `${door.url}/bedrock`,
    token: { token: key },
    authSchemePreference: ['httpBearerAuth'],
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  // What each answer cost, from its header: the client's view of the bill.
  const costs: Nanos[] = [];
  bedrock.middlewareStack.add(
    (next) => async (args) => {
      const out = await next(args);
      const cost = (out.response as { headers?: Record<string, string> }).headers?.['x-model-ops-cost-usd'];
      if (cost) costs.push(nanosOf(cost));
      return out;
    },
    { step: 'deserialize' },
  );
  return { bedrock, costs };
}

const hello = (text = 'Hello there') => ({ modelId: resource.name, messages: [{ role: 'user' as const, content: [{ text }] }] });

beforeAll(async () => {
  [resource, sonnet] = await Promise.all([listed(managedResource()), listed(managedResource(SONNET))]);
  installAwsLambdaGlobal();
  const [{ handler }, { handler: invokeStream }] = await Promise.all([
    import('../../functions/bedrock/converse-stream-url'),
    import('../../functions/bedrock/invoke-stream-url'),
  ]);
  [url, invokeUrl] = await Promise.all([
    startLambdaUrl({ handler, functionName: 'converseStreamUrl', timeoutMs: 60_000 }),
    startLambdaUrl({ handler: invokeStream, functionName: 'invokeStreamUrl', timeoutMs: 60_000 }),
  ]);
  door = await startDoor([
    { method: 'POST', path: '/bedrock/model/{modelId}/converse', handler: converse as Handler },
    { method: 'POST', path: '/bedrock/model/{modelId}/converse-stream', url },
    { method: 'POST', path: '/bedrock/model/{modelId}/invoke', handler: invoke as Handler },
    { method: 'POST', path: '/bedrock/model/{modelId}/invoke-with-response-stream', url: invokeUrl },
    { method: 'POST', path: '/bedrock/model/{modelId}/count-tokens', handler: countTokens as Handler },
    // API Gateway's $default route: what the door does not serve.
    { method: 'POST', path: '/bedrock/model/{modelId}/{operation}', handler: notFound as Handler },
  ]);
  owner = await makeUser('user');
  keys = keysOf(owner);
  const { newKey } = keys;
  [paying, broke, claudeCode] = await Promise.all([
    newKey({ monthly_budget_usd: 5 }),
    newKey({ monthly_budget_usd: 0.000001 }),
    newKey({ monthly_budget_usd: 5 }),
  ]);
});
afterAll(async () => {
  await door?.close();
  await url?.close();
  await invokeUrl?.close();
});

describe('Converse and ConverseStream with a bearer token', () => {
  test("answer in Bedrock's shapes, and the key's spend is the sum of what the calls cost", async () => {
    const { bedrock, costs } = client(paying.key);
    const answer = await bedrock.send(new ConverseCommand({ ...hello(), inferenceConfig: { maxTokens: 50, temperature: 0.2 } }));
    expect(answer.output?.message?.role).toBe('assistant');
    expect(answer.output?.message?.content?.[0]?.text).toEqual(expect.any(String));
    expect(answer.stopReason).toBe('end_turn');
    expect(answer.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    expect(answer.usage?.totalTokens).toBe((answer.usage?.inputTokens ?? 0) + (answer.usage?.outputTokens ?? 0));
    expect(costs).toHaveLength(1);

    const stream = await bedrock.send(new ConverseStreamCommand({ ...hello('Stream to me'), inferenceConfig: { maxTokens: 50 } }));
    const events: ConverseStreamOutput[] = [];
    for await (const event of stream.stream ?? []) events.push(event);
    const kinds = events.map((e) => Object.keys(e).find((k) => k !== '$unknown'));
    expect(kinds[0]).toBe('messageStart');
    expect(kinds).toContain('contentBlockDelta');
    expect(kinds.slice(-2)).toEqual(['messageStop', 'metadata']);
    const text = events.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    expect(events.find((e) => e.messageStop)?.messageStop?.stopReason).toBe('end_turn');
    const usage = events.at(-1)?.metadata?.usage as TokenUsage;
    expect(usage.outputTokens).toBeGreaterThan(0);

    // The stream's cost is its recorded tokens at the model's price (a stream has no cost header).
    const streamCost = tokenCost(await getTokenPrice('managed', MANAGED_MODEL), usage.inputTokens ?? 0, usage.outputTokens ?? 0);
    const sum = usdOf((costs[0] as Nanos) + streamCost);
    expect(sum).toBeGreaterThan(0);
    expect(await spentOf(paying.id)).toBe(sum);
  });
});

describe('documents on Converse', () => {
  test('a document block reaches the model and counts in the tokens; one that is not what its format says is 400 naming the field', async () => {
    const { bedrock, costs } = client(paying.key);
    const notes = 'Quarterly notes. '.repeat(200);
    const plain = await bedrock.send(new ConverseCommand({ ...hello('Summarise the notes'), inferenceConfig: { maxTokens: 20 } }));
    const withDocument = await bedrock.send(
      new ConverseCommand({
        modelId: resource.name,
        messages: [
          {
            role: 'user',
            content: [
              { document: { format: 'txt', name: 'notes.md', source: { bytes: new TextEncoder().encode(notes) } } },
              { text: 'Summarise the notes' },
            ],
          },
        ],
        inferenceConfig: { maxTokens: 20 },
      }),
    );
    expect(withDocument.output?.message?.content?.[0]?.text).toEqual(expect.any(String));
    expect((withDocument.usage?.inputTokens ?? 0) - (plain.usage?.inputTokens ?? 0)).toBeGreaterThan(notes.length / 8);
    expect(costs).toHaveLength(2);

    const fake = await bedrock
      .send(
        new ConverseCommand({
          modelId: resource.name,
          messages: [
            {
              role: 'user',
              content: [
                { document: { format: 'pdf', name: 'report', source: { bytes: new TextEncoder().encode('not a pdf') } } },
                { text: 'Read it' },
              ],
            },
          ],
        }),
      )
      .catch((err: unknown) => err);
    expect(fake).toBeInstanceOf(ValidationException);
    expect((fake as Error).message).toContain('messages.0.content.0.document.source.bytes');
    expect(costs).toHaveLength(2);
  });
});

describe("Bedrock's errors", () => {
  test('a key whose budget cannot cover a call: 403 AccessDeniedException before the model is asked, nothing recorded', async () => {
    const { bedrock } = client(broke.key);
    const refused = await bedrock.send(new ConverseCommand(hello())).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AccessDeniedException);
    expect(refused).toMatchObject({ $metadata: { httpStatusCode: 403 }, message: expect.stringMatching(/budget/i) });
    const streamed = await bedrock.send(new ConverseStreamCommand(hello())).catch((err: unknown) => err);
    expect(streamed).toBeInstanceOf(AccessDeniedException);
    expect(await spentOf(broke.id)).toBe(0);
  });

  test('a wrong key is 403 AccessDeniedException', async () => {
    const { bedrock } = client(`mo_${'x'.repeat(43)}`);
    const refused = await bedrock.send(new ConverseCommand(hello())).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AccessDeniedException);
    expect(refused).toMatchObject({ $metadata: { httpStatusCode: 403 } });
  });

  test('a model the key cannot use is 404 ResourceNotFoundException; a bad request is 400 ValidationException naming the field', async () => {
    const { bedrock } = client(paying.key);
    const missing = await bedrock.send(new ConverseCommand({ ...hello(), modelId: 'no-such-model' })).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ResourceNotFoundException);
    const invalid = await bedrock.send(new ConverseCommand({ ...hello(), inferenceConfig: { temperature: 3 } })).catch((err: unknown) => err);
    expect(invalid).toBeInstanceOf(ValidationException);
    expect((invalid as Error).message).toContain('temperature');
  });

  test("InvokeModel with a body that is not Claude's (Titan's) is 400 ValidationException naming anthropic_version", async () => {
    const { bedrock } = client(paying.key);
    const refused = await bedrock
      .send(new InvokeModelCommand({ modelId: resource.name, body: JSON.stringify({ inputText: 'Hello' }), contentType: 'application/json' }))
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ValidationException);
    expect((refused as Error).message).toContain('anthropic_version');
  });

  test("a platform's failure is a 5xx InternalServerException, which the SDKs retry, and spends nothing", async () => {
    const { bedrock } = client(paying.key);
    const before = await spentOf(paying.id);
    const failed = await withModelFault(resource, () => bedrock.send(new ConverseCommand(hello())).catch((err: unknown) => err));
    expect(failed).toBeInstanceOf(InternalServerException);
    expect(failed).toMatchObject({ $metadata: { httpStatusCode: 502 } });
    expect(await spentOf(paying.id)).toBe(before);
  });
});

/** Claude's InvokeModel body as Bedrock takes it: Anthropic's Messages request, anthropic_version and anthropic_beta in the body. */
const claudeBody = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    anthropic_version: 'bedrock-2023-05-31',
    anthropic_beta: ['token-efficient-tools-2025-02-19', 'claude-code-20250219'],
    max_tokens: 60,
    system: 'Answer briefly.',
    messages: [{ role: 'user', content: 'Hello there' }],
    ...extra,
  });

/** The Anthropic events of an InvokeModelWithResponseStream answer: each chunk's bytes, as JSON. */
async function chunksOf(bedrock: BedrockRuntimeClient, modelId: string, body: string): Promise<Record<string, unknown>[]> {
  const out = await bedrock.send(
    new InvokeModelWithResponseStreamCommand({ modelId, body, contentType: 'application/json', accept: 'application/json' }),
  );
  const events: Record<string, unknown>[] = [];
  for await (const part of out.body ?? []) {
    if (part.chunk?.bytes) events.push(JSON.parse(Buffer.from(part.chunk.bytes).toString('utf8')) as Record<string, unknown>);
  }
  return events;
}

const messageOf = (out: InvokeModelCommandOutput) => JSON.parse(Buffer.from(out.body).toString('utf8')) as Record<string, unknown>;

describe("InvokeModel and InvokeModelWithResponseStream with Claude's body", () => {
  test("answer Anthropic's message and its events as chunks, ending with Bedrock's invocation metrics; the key's spend is the sum of the calls", async () => {
    const { bedrock, costs } = client(claudeCode.key);
    const answered = await bedrock.send(
      new InvokeModelCommand({ modelId: resource.name, body: claudeBody(), contentType: 'application/json', accept: 'application/json' }),
    );
    expect(answered.contentType).toMatch(/^application\/json/);
    const message = messageOf(answered);
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(message.content).toEqual([{ type: 'text', text: expect.any(String) }]);
    expect(costs).toHaveLength(1);

    const events = await chunksOf(bedrock, resource.name, claudeBody());
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
    const metrics = events.at(-1)?.['amazon-bedrock-invocationMetrics'] as Record<string, number>;
    expect(metrics).toEqual({
      inputTokenCount: expect.any(Number),
      outputTokenCount: expect.any(Number),
      invocationLatency: expect.any(Number),
      firstByteLatency: expect.any(Number),
    });
    expect(metrics.outputTokenCount).toBeGreaterThan(0);

    const streamCost = tokenCost(await getTokenPrice('managed', MANAGED_MODEL), metrics.inputTokenCount ?? 0, metrics.outputTokenCount ?? 0);
    expect(await spentOf(claudeCode.id)).toBe(usdOf((costs[0] as Nanos) + streamCost));
  });

  test("Claude Code's Bedrock request works: streamed, thinking with tools, its betas in the body (the model's passed on, the first-party ones dropped)", async () => {
    const { bedrock } = client(paying.key);
    const body = claudeBody({
      anthropic_beta: ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'fine-grained-tool-streaming-2025-05-14'],
      max_tokens: 4096,
      temperature: 1,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
      tools: [
        {
          name: 'Bash',
          description: 'Run a command',
          input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
        },
      ],
      metadata: { user_id: 'user_abc_account__session_123' },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is in this directory?' }] }],
    });
    const dropped: string[] = [];
    bedrock.middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        const header = (out.response as { headers?: Record<string, string> }).headers?.['x-model-ops-betas-dropped'];
        if (header) dropped.push(header);
        return out;
      },
      { step: 'deserialize' },
    );
    const events = await chunksOf(bedrock, sonnet.name, body);
    const started = events.filter((e) => e.type === 'content_block_start').map((e) => (e.content_block as { type: string }).type);
    expect(started[0]).toBe('thinking');
    expect(events.some((e) => (e.delta as { type?: string } | undefined)?.type === 'signature_delta')).toBe(true);
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(dropped).toEqual(['claude-code-20250219']);
  });

  test('a key whose budget cannot cover the call gets 403 AccessDeniedException on both, and nothing is recorded', async () => {
    const { bedrock } = client(broke.key);
    const refused = await bedrock
      .send(new InvokeModelCommand({ modelId: resource.name, body: claudeBody(), contentType: 'application/json' }))
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AccessDeniedException);
    const streamed = await chunksOf(bedrock, resource.name, claudeBody()).catch((err: unknown) => err);
    expect(streamed).toBeInstanceOf(AccessDeniedException);
    expect(await spentOf(broke.id)).toBe(0);
  });
});

describe('CountTokens', () => {
  test('counts an InvokeModel body and a Converse request alike, free: a key whose budget covers no call counts and spends nothing', async () => {
    const { bedrock } = client(broke.key);
    const invoked = await bedrock.send(
      new CountTokensCommand({ modelId: resource.name, input: { invokeModel: { body: new TextEncoder().encode(claudeBody()) } } }),
    );
    const conversed = await bedrock.send(
      new CountTokensCommand({
        modelId: resource.name,
        input: { converse: { system: [{ text: 'Answer briefly.' }], messages: [{ role: 'user', content: [{ text: 'Hello there' }] }] } },
      }),
    );
    expect(invoked.inputTokens).toBeGreaterThan(0);
    expect(conversed.inputTokens).toBe(invoked.inputTokens);
    expect(await spentOf(broke.id)).toBe(0);
  });

  test("an InvokeModel body that is not Claude's is 400 ValidationException naming anthropic_version", async () => {
    const { bedrock } = client(paying.key);
    const refused = await bedrock
      .send(
        new CountTokensCommand({
          modelId: resource.name,
          input: { invokeModel: { body: new TextEncoder().encode(JSON.stringify({ inputText: 'Hi' })) } },
        }),
      )
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ValidationException);
    expect((refused as Error).message).toContain('anthropic_version');
  });
});
