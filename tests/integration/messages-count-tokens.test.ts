/**
 * POST /v1/messages/count_tokens (issue 35, section 2) with the official Anthropic SDK
 * (`client.messages.countTokens`), its requests answered by the handler in process: Bedrock's
 * CountTokens where the model has it (the emulator, through the real Bedrock runtime client), the
 * prompt's bound elsewhere; free (nothing held or spent); rate-limited like any call.
 */
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient, CountTokensCommand, ValidationException } from '@aws-sdk/client-bedrock-runtime';
import { jest } from '@jest/globals';
import type { DocumentType } from '@smithy/types';
import { handler as messages } from '../../functions/gateway/messages';
import { handler as countTokens } from '../../functions/gateway/messages-count-tokens';
import type { Resource } from '../../tables/resources';
import { inProcessFetch } from '../helpers/in-process-fetch';
import type { Handler } from '../helpers/invoke';
import { keysOf } from '../helpers/keys';
import { makeUser } from '../helpers/users';
import { listed, MANAGED_MODEL, putResource } from './chat-fixtures';

jest.setTimeout(60_000);

/** A model Bedrock's CountTokens counts for (AWS's table), through its US profile: counted as its foundation model. */
const SONNET_4 = 'us.anthropic.claude-sonnet-4-20250514-v1:0';

let counted: Resource;
let estimated: Resource;
let owner: Awaited<ReturnType<typeof makeUser>>;
let paying: { key: string; id: string };
let broke: { key: string; id: string };
let limited: { key: string; id: string };

let keys: ReturnType<typeof keysOf>;
const spentOf = (id: string) => keys.spentOf(id);

const clientFor = (apiKey: string) =>
  new Anthropic({
    apiKey,
    baseURL: 'http://gateway.test',
    fetch: inProcessFetch({ 'POST /v1/messages/count_tokens': countTokens as Handler, 'POST /v1/messages': messages as Handler }),
    maxRetries: 0,
  });

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const question = { system: 'You answer briefly.', messages: [{ role: 'user' as const, content: 'What is the weather in Lisbon today?' }] };

beforeAll(async () => {
  [counted, estimated] = await Promise.all([
    listed(putResource({ type: 'managed', model_id: SONNET_4, model_name: SONNET_4 })),
    listed(putResource({ type: 'managed', model_id: MANAGED_MODEL, model_name: MANAGED_MODEL })),
  ]);
  owner = await makeUser('user');
  keys = keysOf(owner);
  const { newKey } = keys;
  [paying, broke, limited] = await Promise.all([
    newKey({ monthly_budget_usd: 5 }),
    newKey({ monthly_budget_usd: 0.000001 }),
    newKey({ rpm_limit: 2 }),
  ]);
});

describe('the count', () => {
  test("on a model Bedrock counts for, it is Bedrock's CountTokens of the same messages, system prompt and tools", async () => {
    const { data, response } = await clientFor(paying.key)
      .messages.countTokens({ model: counted.endpoint_name, ...question, tools: [WEATHER] })
      .withResponse();
    expect(response.headers.get('x-model-ops-token-count')).toBe('platform');
    expect(response.headers.get('x-model-ops-resource')).toBe(counted.endpoint_name);

    // What Bedrock itself answers for that request, asked directly.
    const bedrock = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: process.env.EMULATOR_URL,
      credentials: { accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID as string, secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    const direct = await bedrock.send(
      new CountTokensCommand({
        modelId: 'anthropic.claude-sonnet-4-20250514-v1:0',
        input: {
          converse: {
            system: [{ text: question.system }],
            messages: [{ role: 'user', content: [{ text: question.messages[0]?.content as string }] }],
            toolConfig: {
              tools: [
                { toolSpec: { name: WEATHER.name, description: WEATHER.description, inputSchema: { json: WEATHER.input_schema as DocumentType } } },
              ],
            },
          },
        },
      }),
    );
    expect(data.input_tokens).toBe(direct.inputTokens);
    bedrock.destroy();
  });

  test('Bedrock refuses CountTokens for a model it does not count, as AWS documents', async () => {
    const bedrock = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: process.env.EMULATOR_URL,
      credentials: { accessKeyId: process.env.SERVICE_CLOUD_ACCESS_KEY_ID as string, secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    const refused = await bedrock
      .send(new CountTokensCommand({ modelId: MANAGED_MODEL, input: { converse: { messages: [{ role: 'user', content: [{ text: 'Hi' }] }] } } }))
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ValidationException);
    expect((refused as Error).message).toBe("The provided model doesn't support counting tokens.");
    bedrock.destroy();
  });

  test('elsewhere it is the prompt bound the budget hold reserves: never below what the same call is billed as input', async () => {
    const client = clientFor(paying.key);
    const { data, response } = await client.messages.countTokens({ model: estimated.endpoint_name, ...question }).withResponse();
    expect(response.headers.get('x-model-ops-token-count')).toBe('estimate');
    const answer = await client.messages.create({ model: estimated.endpoint_name, max_tokens: 20, ...question });
    expect(answer.usage.input_tokens).toBeGreaterThan(0);
    expect(data.input_tokens).toBeGreaterThanOrEqual(answer.usage.input_tokens);
  });
});

describe('what a count costs and who may make it', () => {
  test('it is free: a key whose budget cannot cover any call counts, and spends nothing', async () => {
    const { input_tokens } = await clientFor(broke.key).messages.countTokens({ model: counted.endpoint_name, ...question });
    expect(input_tokens).toBeGreaterThan(0);
    expect(await spentOf(broke.id)).toBe(0);
  });

  test("it counts against the key's requests per minute: with rpm_limit 2 the third count is 429 rate_limit_error", async () => {
    const client = clientFor(limited.key);
    await client.messages.countTokens({ model: estimated.endpoint_name, ...question });
    await client.messages.countTokens({ model: estimated.endpoint_name, ...question });
    const refused = await client.messages.countTokens({ model: estimated.endpoint_name, ...question }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(Anthropic.RateLimitError);
    expect((refused as InstanceType<typeof Anthropic.RateLimitError>).headers?.get('retry-after')).toMatch(/^\d+$/);
  });

  test('a model the key may not use is 404 not_found_error; a body with max_tokens is 400 invalid_request_error naming it', async () => {
    const client = clientFor(paying.key);
    const missing = await client.messages.countTokens({ model: 'no-such-model', ...question }).catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    const invalid = await client.messages
      .countTokens({ model: estimated.endpoint_name, ...question, max_tokens: 10 } as Anthropic.MessageCountTokensParams)
      .catch((err: unknown) => err);
    expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
    expect((invalid as Error).message).toContain('max_tokens');
  });
});
