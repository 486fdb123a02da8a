/**
 * The request schemas of the wire dialects (lib/dialects/schemas/): the bodies the official clients
 * send pass the check and the dialect, and every refusal names the field at fault, inside unions too.
 * That the dialects read what the checks let through needs no test: their body types are the schemas'
 * Static types.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import * as checks from '../../generated/checks/gateway';
import * as anthropicMessages from '../../lib/dialects/anthropic-messages';
import * as openAiChat from '../../lib/dialects/openai-chat';
import * as openAiEmbeddings from '../../lib/dialects/openai-embeddings';
import * as openAiResponses from '../../lib/dialects/openai-responses';
import { validator } from '../../lib/http/validation';
import { PNG, answering, refusal } from '../helpers/dialects';

const chat = validator(checks.ChatCompletionBody, 'body');
const embeddings = validator(checks.EmbeddingsBody, 'body');
const responses = validator(checks.ResponsesBody, 'body');
const messages = validator(checks.MessagesBody, 'body');

const refused = (fn: () => unknown): string => refusal(fn).message;

const m = 'my-model';
const user = [{ role: 'user', content: 'Hi' }];

describe('the bodies the official clients send pass the check and the dialect', () => {
  test('openai: chat with tools, a tool loop, JSON schema output and an image', async () => {
    const { fetch, sent } = answering({});
    const client = new OpenAI({ apiKey: 'k', baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 });
    await client.chat.completions
      .create({
        model: m,
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather where this was taken?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '18 C' },
        ],
        tools: [
          {
            type: 'function',
            function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true },
          },
        ],
        tool_choice: 'auto',
        parallel_tool_calls: true,
        response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: { type: 'object' }, strict: true } },
        max_completion_tokens: 100,
        stream_options: { include_usage: true },
        stream: true,
      })
      .catch(() => undefined);
    const call = openAiChat.parse(chat.parse(sent[0]?.body));
    expect(call.request.toolChoice).toBe('auto');
    expect(call.request.messages).toHaveLength(3);
  });

  test('openai: embeddings as the client sends them (base64 asked by default)', async () => {
    const { fetch, sent } = answering({ object: 'list', data: [], model: m, usage: { prompt_tokens: 0, total_tokens: 0 } });
    await new OpenAI({ apiKey: 'k', baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 }).embeddings.create({
      model: m,
      input: ['a', 'b'],
      dimensions: 256,
    });
    expect(openAiEmbeddings.parse(embeddings.parse(sent[0]?.body))).toMatchObject({
      encoding: 'base64',
      request: { inputs: ['a', 'b'], dimensions: 256 },
    });
  });

  test('openai: a Responses tool loop with instructions, text.format and store', async () => {
    const { fetch, sent } = answering({});
    await new OpenAI({ apiKey: 'k', baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 }).responses
      .create({
        model: m,
        instructions: 'Be brief.',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{}' },
          { type: 'function_call_output', call_id: 'call_1', output: '18 C' },
        ],
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: false }],
        text: { format: { type: 'json_schema', name: 'w', schema: { type: 'object' }, strict: true } },
        store: true,
        max_output_tokens: 100,
      })
      .catch(() => undefined);
    expect(openAiResponses.parse(responses.parse(sent[0]?.body)).request.messages).toHaveLength(3);
  });

  test('the Vercel AI SDK’s OpenAI provider: generateText with tools and a JSON schema (its request, per @ai-sdk/openai 3’s getArgs)', () => {
    const body = {
      model: m,
      input: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Weather?' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}` },
          ],
        },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temperature":18}' },
      ],
      temperature: 0,
      max_output_tokens: 200,
      text: { format: { type: 'json_schema', strict: true, name: 'response', description: 'The weather', schema: { type: 'object' } } },
      store: false,
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather now', parameters: { type: 'object', properties: {} }, strict: false }],
      tool_choice: 'auto',
      stream: true,
    };
    expect(openAiResponses.parse(responses.parse(body))).toMatchObject({ stream: true, request: { system: 'Be brief.', temperature: 0 } });
  });

  test('@anthropic-ai/sdk: a tool loop with a system prompt, cache marks, thinking and metadata', async () => {
    const { fetch, sent } = answering({});
    await new Anthropic({ apiKey: 'k', baseURL: 'http://gateway.test', fetch, maxRetries: 0 }).messages
      .create({
        model: m,
        max_tokens: 1024,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18 C' }] },
        ],
        tools: [{ name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
        tool_choice: { type: 'auto' },
        thinking: { type: 'disabled' },
        metadata: { user_id: 'u1' },
        stream: true,
      })
      .catch(() => undefined);
    expect(anthropicMessages.parse(messages.parse(sent[0]?.body)).request.messages).toHaveLength(3);
  });
});

describe('refusals name the field at fault', () => {
  test.each([
    [
      {
        model: m,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'a' },
              { type: 'image_url', image_url: {} },
            ],
          },
        ],
      },
      "Missing required field 'messages.0.content.1.image_url.url'",
    ],
    [
      { model: m, messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: {} }] }] },
      "Invalid field 'messages.0.content.0.type': must be one of the allowed values (text, image_url or file; audio parts are not supported)",
    ],
    [
      { model: m, messages: [{ role: 'function', content: 'x' }] },
      "Invalid field 'messages.0.role': must be one of the allowed values (system, developer, user, assistant or tool; function messages are not supported)",
    ],
    [{ model: m, messages: [{ role: 'tool', content: 'x' }] }, "Missing required field 'messages.0.tool_call_id'"],
    [
      { model: m, messages: [{ role: 'user', content: 'x', foo: 1 }] },
      "Unknown field 'messages.0.foo' (a user message takes role, content and name)",
    ],
    [{ model: m, messages: user, temprature: 1 }, "Unknown field 'temprature'"],
    [{ model: m, messages: user, tool_choice: { type: 'function' } }, "Missing required field 'tool_choice.function'"],
    [
      { model: m, messages: user, tool_choice: 'sometimes' },
      'Invalid field \'tool_choice\': must be auto, none, required, or {"type": "function", "function": {"name": …}}',
    ],
    [{ model: m, messages: user, stop: 'x'.repeat(201) }, "Invalid field 'stop': must NOT have more than 200 characters"],
    [
      { model: m, messages: user, tools: [{ type: 'web_search' }] },
      "Invalid field 'tools.0.type': must be one of the allowed values (function: the only kind of tool; built-in tools are not supported)",
    ],
    [
      { model: m, messages: user, response_format: { type: 'json_schema', json_schema: { name: 'x' } } },
      "Missing required field 'response_format.json_schema.schema'",
    ],
  ])('chat completions %j → %s', (body, message) => {
    expect(refused(() => chat.parse(body))).toBe(message);
  });

  test('a field of a feature the gateway does not offer is refused as not supported, a typo as unknown', () => {
    expect(refused(() => chat.parse({ model: m, messages: user, logprobs: true }))).toContain('not supported');
    expect(refused(() => messages.parse({ model: m, max_tokens: 1, messages: user, container: 'c' }))).toContain('not supported');
    expect(refused(() => responses.parse({ model: m, input: 'x', background: true }))).toContain('not supported');
  });

  test.each([
    [{ model: m, input: [1, 2] }, "Invalid field 'input.0': must be string (a text of 1 to 50000 characters; arrays of token ids are not supported)"],
    [{ model: m, input: 5 }, "Invalid field 'input': must be a text, or an array of up to 2048 texts; arrays of token ids are not supported"],
    [{ model: m, input: 'x', encoding_format: 'binary' }, "Invalid field 'encoding_format': must be one of the allowed values (float or base64)"],
  ])('embeddings %j → %s', (body, message) => {
    expect(refused(() => embeddings.parse(body))).toBe(message);
  });

  test.each([
    [{ model: m, input: [{ type: 'function_call', call_id: 'c', arguments: '{}' }] }, "Missing required field 'input.0.name'"],
    [
      { model: m, input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}', foo: 1 }] },
      "Unknown field 'input.0.foo' (a function_call item takes type, call_id, name, arguments, id and status)",
    ],
    [
      { model: m, input: [{ type: 'reasoning', summary: [] }] },
      "Invalid field 'input.0.type': must be one of the allowed values (message (the default), function_call or function_call_output; other item types are not supported)",
    ],
    [{ model: m, input: [{ content: 'x' }] }, "Missing required field 'input.0.role'"],
    [
      { model: m, input: [{ role: 'user', content: 'x', foo: 2 }] },
      "Unknown field 'input.0.foo' (a message takes type, role, content, id, status and phase)",
    ],
    [
      { model: m, input: [{ type: 'message', role: 'user', content: 'x', foo: 2 }] },
      "Unknown field 'input.0.foo' (a message takes type, role, content, id, status and phase)",
    ],
    [
      { model: m, input: [{ role: 'user', content: [{ type: 'input_file' }] }] },
      "Invalid field 'input.0.content.0.type': must be one of the allowed values (input_text, input_image, output_text or refusal; audio and file parts are not supported)",
    ],
    [{ model: m, input: [{ type: 'function_call_output', call_id: 'c' }] }, "Missing required field 'input.0.output'"],
    [
      { model: m, input: 'x', tools: [{ type: 'web_search' }] },
      "Invalid field 'tools.0.type': must be one of the allowed values (function: the only kind of tool; built-in tools such as web_search or file_search are not supported)",
    ],
    [{ model: m, input: 'x', temperature: 3 }, "Invalid field 'temperature': must be <= 2"],
    [{ model: m, input: 'x', parallel_tool_calls: 'yes' }, "Invalid field 'parallel_tool_calls': must be boolean, or null"],
  ])('responses %j → %s', (body, message) => {
    expect(refused(() => responses.parse(body))).toBe(message);
  });

  test('an item_reference passes the check, for the dialect to say why it cannot be used', () => {
    expect(() => responses.parse({ model: m, input: [{ type: 'item_reference', id: 'msg_1' }] })).not.toThrow();
  });

  test.each([
    [{ model: m, messages: user }, "Missing required field 'max_tokens'"],
    [
      { model: m, max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'search_result' }] }] },
      "Invalid field 'messages.0.content.0.type': must be one of the allowed values (text, image, document or tool_result; search results and server tool blocks are not supported)",
    ],
    [
      { model: m, max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'document' }] }] },
      "Missing required field 'messages.0.content.0.source'",
    ],
    [
      { model: m, max_tokens: 1, messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] },
      "Missing required field 'messages.0.content.0.tool_use_id'",
    ],
    [
      { model: m, max_tokens: 1, messages: user, tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] },
      "Invalid field 'tools.0.type': must be one of the allowed values (custom; server tools such as web_search, bash or code_execution are not supported)",
    ],
    [{ model: m, max_tokens: 1, messages: user, tools: [{ name: 'f' }] }, "Missing required field 'tools.0.input_schema'"],
    [
      { model: m, max_tokens: 1, messages: user, tools: [{ type: 'custom', name: 'f', input_schema: {}, x: 1 }] },
      "Unknown field 'tools.0.x' (a tool takes type, name, description, input_schema, strict and cache_control)",
    ],
    [
      {
        model: m,
        max_tokens: 1,
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: 'x' } }] }],
      },
      "Invalid field 'messages.0.content.0.source.media_type': must be one of the allowed values (image/jpeg, image/png, image/gif or image/webp)",
    ],
    [{ model: m, max_tokens: 1, messages: user, temperature: 1.5 }, "Invalid field 'temperature': must be <= 1"],
  ])('messages %j → %s', (body, message) => {
    expect(refused(() => messages.parse(body))).toBe(message);
  });

  test('a custom tool with or without its type passes', () => {
    for (const tool of [
      { name: 'f', input_schema: { type: 'object' } },
      { type: 'custom', name: 'f', input_schema: { type: 'object' } },
    ]) {
      expect(() => messages.parse({ model: m, max_tokens: 1, messages: user, tools: [tool] })).not.toThrow();
    }
  });
});
