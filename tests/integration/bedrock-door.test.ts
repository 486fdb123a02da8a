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
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  ResourceNotFoundException,
  ValidationException,
  type ConverseStreamOutput,
  type TokenUsage,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { nanosOf, usdOf, type Nanos } from '../../core/money';
import { handler as createKey } from '../../functions/keys/create';
import { handler as listKeys } from '../../functions/keys/list';
import { handler as converse } from '../../functions/bedrock/converse';
import { handler as notFound } from '../../functions/system/not-found';
import { installAwsLambdaGlobal, startLambdaUrl, type LambdaUrl } from '../../local/lambda-url';
import { getTokenPrice, tokenCost } from '../../lib/pricing/service';
import type { Resource } from '../../tables/resources';
import { startDoor } from '../helpers/door';
import { call, type Handler } from '../helpers/invoke';
import { makeUser } from '../helpers/users';
import { listed, managedResource, MANAGED_MODEL, withModelFault } from './chat-fixtures';

jest.setTimeout(60_000);

let resource: Resource;
let url: LambdaUrl;
let door: Awaited<ReturnType<typeof startDoor>>;
let owner: Awaited<ReturnType<typeof makeUser>>;
/** A key that pays for its calls, and one whose budget cannot cover any. */
let paying: { key: string; id: string };
let broke: { key: string; id: string };

async function newKey(body: Record<string, unknown>) {
  const res = await call(createKey as Handler, { method: 'POST', token: owner.token, body: { name: 'k', ...body } });
  expect(res.status).toBe(201);
  return { key: res.body.key as string, id: res.body.id as string };
}

const spentOf = async (id: string): Promise<number> =>
  (await call(listKeys as Handler, { token: owner.token })).body.keys.find((k: { id: string }) => k.id === id).spent_usd;

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
  resource = await listed(managedResource());
  installAwsLambdaGlobal();
  const { handler } = await import('../../functions/bedrock/converse-stream-url');
  url = await startLambdaUrl({ handler, functionName: 'converseStreamUrl', timeoutMs: 60_000 });
  door = await startDoor([
    { method: 'POST', path: '/bedrock/model/{modelId}/converse', handler: converse as Handler },
    { method: 'POST', path: '/bedrock/model/{modelId}/converse-stream', url },
    // API Gateway's $default route: what the door does not serve yet.
    { method: 'POST', path: '/bedrock/model/{modelId}/invoke', handler: notFound as Handler },
  ]);
  owner = await makeUser('user');
  [paying, broke] = await Promise.all([newKey({ monthly_budget_usd: 5 }), newKey({ monthly_budget_usd: 0.000001 })]);
});
afterAll(async () => {
  await door?.close();
  await url?.close();
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

  test('an operation the door does not serve yet (InvokeModel) is 404 ResourceNotFoundException saying what it serves', async () => {
    const { bedrock } = client(paying.key);
    const refused = await bedrock
      .send(new InvokeModelCommand({ modelId: resource.name, body: JSON.stringify({ messages: [] }), contentType: 'application/json' }))
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ResourceNotFoundException);
    expect((refused as Error).message).toContain('not served yet');
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
