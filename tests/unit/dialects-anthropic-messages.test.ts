/**
 * lib/dialects/anthropic-messages.ts: Anthropic's Messages API read into the canonical request, and
 * replies and metered streams written back, checked against `@anthropic-ai/sdk`'s own parsers
 * (MessageStream assembles the message from the events; an `error` event is raised by its type).
 */
import Anthropic from '@anthropic-ai/sdk';
import { anthropicErrorBody } from '../../lib/http/anthropic-errors';
import { answer, frames, parse, type MessagesBody } from '../../lib/dialects/anthropic-messages';
import { UpstreamError } from '../../lib/errors';
import { JPEG, META, PNG, SETTLED, answering, events, stream, text, refusal, reply } from '../helpers/dialects';

const body = (fields: Partial<MessagesBody>): MessagesBody => ({
  model: 'my-model',
  max_tokens: 256,
  messages: [{ role: 'user', content: 'Hi' }],
  ...fields,
});

const client = (fetch: ReturnType<typeof answering>['fetch']) =>
  new Anthropic({ apiKey: 'mo_test', baseURL: 'http://gateway.test', fetch, maxRetries: 0 });
const weather = { name: 'get_weather', description: 'Weather now', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };

describe('reading a Messages request', () => {
  test('system (text blocks), max_tokens, sampling and stop sequences map onto the canonical request', () => {
    expect(
      parse(
        body({
          system: [
            { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
            { type: 'text', text: 'Answer in French.' },
          ],
          temperature: 0.3,
          top_p: 0.9,
          stop_sequences: ['END'],
          stream: true,
        }),
      ),
    ).toEqual({
      model: 'my-model',
      stream: true,
      request: {
        // The blocks stay apart: the first carries its cache checkpoint (5 minutes, Anthropic's default).
        system: [
          { type: 'text', text: 'You are terse.', cache: '5m' },
          { type: 'text', text: 'Answer in French.' },
        ],
        messages: [{ role: 'user', content: 'Hi' }],
        maxTokens: 256,
        temperature: 0.3,
        topP: 0.9,
        stop: ['END'],
      },
    });
  });

  test('a tool loop: tool_use blocks are the assistant’s calls, tool_result blocks the results ahead of the user’s text', () => {
    const call = parse(
      body({
        tools: [weather],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'The user wants weather.', signature: 'sig' },
              { type: 'text', text: 'Let me look.' },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Be quick.' },
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18 C' }], is_error: false },
            ],
          },
        ],
      }),
    );
    expect(call.request.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
        // Thinking goes back to the model with its signature, for the platform to check.
        reasoning: [{ type: 'thinking', text: 'The user wants weather.', signature: 'sig' }],
      },
      { role: 'tool', toolCallId: 'toolu_1', content: '18 C' },
      { role: 'user', content: 'Be quick.' },
    ]);
    expect(call.request.tools).toEqual([{ name: 'get_weather', description: 'Weather now', parameters: weather.input_schema }]);
  });

  test('a tool result marked as an error stays one, and one with images keeps them', () => {
    const call = parse(
      body({
        tools: [weather],
        messages: [
          { role: 'user', content: 'Chart?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                is_error: true,
                content: [
                  { type: 'text', text: 'partial' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
                ],
              },
            ],
          },
        ],
      }),
    );
    expect(call.request.messages[2]).toEqual({
      role: 'tool',
      toolCallId: 't1',
      isError: true,
      content: [
        { type: 'text', text: 'partial' },
        { type: 'image', mediaType: 'image/png', data: PNG },
      ],
    });
  });

  test('base64 images become image parts; URL and file sources are refused saying why', () => {
    const call = parse(
      body({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: JPEG } },
              { type: 'text', text: 'What is it?' },
            ],
          },
        ],
      }),
    );
    expect(call.request.messages[0]?.content).toEqual([
      { type: 'image', mediaType: 'image/jpeg', data: JPEG },
      { type: 'text', text: 'What is it?' },
    ]);
    const url = refusal(() =>
      parse(body({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] }] })),
    );
    expect(url.message).toBe(
      'Invalid field \'messages.0.content.0.source\': image URLs are not fetched: send the image as base64 ({"type": "base64", "media_type", "data"})',
    );
    const file = refusal(() =>
      parse(body({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'file_1' } }] }] })),
    );
    expect(file.param).toBe('messages.0.content.0.source');
  });

  test('image bytes of another format than their media type are refused', () => {
    const err = refusal(() =>
      parse(body({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: JPEG } }] }] })),
    );
    expect(err.message).toBe("Invalid field 'messages.0.content.0.source.data': the data is not a image/png image (it is image/jpeg)");
  });

  test.each([
    [{ type: 'auto' }, 'auto'],
    [{ type: 'any' }, 'required'],
    [{ type: 'none' }, 'none'],
    [{ type: 'tool', name: 'get_weather' }, { name: 'get_weather' }],
  ] as const)('tool_choice %j is %j', (choice, canonical) => {
    expect(parse(body({ tools: [weather], tool_choice: choice })).request.toolChoice).toEqual(canonical);
  });

  test('disable_parallel_tool_use turns parallel tool calls off', () => {
    expect(parse(body({ tools: [weather], tool_choice: { type: 'auto', disable_parallel_tool_use: true } })).request.parallelToolCalls).toBe(false);
    expect(parse(body({ tools: [weather], tool_choice: { type: 'auto' } })).request).not.toHaveProperty('parallelToolCalls');
  });

  test('output_config.format is a strict JSON schema output', () => {
    const schema = { type: 'object', properties: { a: { type: 'number' } } };
    expect(parse(body({ output_config: { format: { type: 'json_schema', schema } } })).request.outputFormat).toEqual({
      type: 'json_schema',
      name: 'output',
      schema,
      strict: true,
    });
  });

  test('system messages among the messages join the system prompt', () => {
    expect(
      parse(
        body({
          system: 'A',
          messages: [
            { role: 'system', content: 'B' },
            { role: 'user', content: 'Hi' },
          ],
        }),
      ).request.system,
    ).toBe('A\n\nB');
  });

  test('a tool_result that answers no tool_use of the turn before is refused, naming its field', () => {
    const err = refusal(() =>
      parse(
        body({
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'x' },
                { type: 'tool_result', tool_use_id: 'nope' },
              ],
            },
          ],
        }),
      ),
    );
    expect(err.message).toBe(
      "Invalid field 'messages.0.content.1.tool_use_id': a tool_result answers 'nope', which is not a tool_use of the assistant turn right before it",
    );
  });

  test('a tool_use left without its result is refused', () => {
    expect(
      refusal(() =>
        parse(
          body({
            tools: [weather],
            messages: [
              { role: 'user', content: 'x' },
              { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
              { role: 'user', content: 'y' },
            ],
          }),
        ),
      ).param,
    ).toBe('messages.1');
  });

  test('input_schema that is not an object schema is refused', () => {
    expect(refusal(() => parse(body({ tools: [{ name: 'f', input_schema: { type: 'array' } }] }))).param).toBe('tools.0.input_schema');
  });
});

describe('answering a Messages request', () => {
  test('a reply is a message with a text block, its stop reason and the usage settled', () => {
    expect(answer(reply(), SETTLED, META)).toEqual({
      id: 'msg_123e4567e89b42d3a456426614174000',
      type: 'message',
      role: 'assistant',
      model: 'my-model',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: {
        input_tokens: 12,
        output_tokens: 7,
        service_tier: 'standard',
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
  });

  test('tool calls are tool_use blocks with their input as an object, and the stop reason tool_use', () => {
    const body = answer(reply({ content: '', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }), SETTLED, META);
    expect(body.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }]);
    expect(body.stop_reason).toBe('tool_use');
  });

  test('arguments that are not a JSON object become an empty input rather than a broken block', () => {
    const body = answer(reply({ content: '', toolCalls: [{ id: 't', name: 'f', arguments: '{"city": "Par' }] }), SETTLED, META);
    expect(body.content[0]).toMatchObject({ input: {} });
  });

  test.each([
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
    ['stop', 'end_turn'],
  ] as const)('a reply that ended with %s has stop_reason %s', (finish, stop) => {
    expect(answer(reply({ finishReason: finish }), SETTLED, META).stop_reason).toBe(stop);
  });

  test('the Anthropic client reads the answer', async () => {
    const { fetch, sent } = answering(answer(reply({ content: 'Bonjour' }), SETTLED, META));
    const message = await client(fetch).messages.create({ model: 'my-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Bonjour' }]);
    expect(message.usage.input_tokens).toBe(12);
    // What the client sends, for the route: the key in one of the two headers it takes (the 1.x clients
    // send it as a bearer credential, 0.x and Claude Code in x-api-key), and an anthropic-version.
    expect(sent[0]?.url).toBe('http://gateway.test/v1/messages');
    const headers = sent[0]?.headers;
    expect(headers?.get('x-api-key') ?? headers?.get('authorization')?.replace(/^Bearer /, '')).toBe('mo_test');
    expect(sent[0]?.headers.get('anthropic-version')).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

const toolStream = () =>
  stream([
    { kind: 'text', text: 'Let me ' },
    { kind: 'text', text: 'look.' },
    { kind: 'tool_call', index: 1, id: 'toolu_1', name: 'get_weather' },
    { kind: 'tool_arguments', index: 1, text: '{"city":' },
    { kind: 'tool_arguments', index: 1, text: '"Paris"}' },
    { kind: 'stop', finishReason: 'tool_calls' },
    { kind: 'usage', tokensIn: 99, tokensOut: 99 },
    { kind: 'settled', ...SETTLED },
  ]);

describe('streaming a Messages request', () => {
  test('the events come in Anthropic’s order: message_start, ping, each block started, delta’d and stopped, message_delta, message_stop', async () => {
    const list = events(await text(frames(toolStream(), META)));
    expect(list.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(list.every((e) => e.data.type === e.event)).toBe(true);
    expect(list[2]?.data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    expect(list[6]?.data).toEqual({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
    });
    expect(list[7]?.data).toEqual({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } });
    expect(list[10]?.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: {
        input_tokens: 12,
        output_tokens: 7,
        service_tier: 'standard',
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        cost_usd: 0.000321,
      },
    });
  });

  test('the Anthropic client’s MessageStream assembles the same message as the answer', async () => {
    const { fetch } = answering(await text(frames(toolStream(), META)));
    const run = client(fetch).messages.stream({ model: 'my-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    const texts: string[] = [];
    run.on('text', (delta) => texts.push(delta));
    const final = await run.finalMessage();
    const expected = answer(
      reply({ content: 'Let me look.', toolCalls: [{ id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }),
      SETTLED,
      META,
    );
    expect(texts.join('')).toBe('Let me look.');
    expect(final).toMatchObject({ ...expected, content: expected.content, usage: { input_tokens: 12, output_tokens: 7 } });
  });

  test('a platform failure mid-stream is an error event the Anthropic client raises with its type', async () => {
    const raw = await text(
      frames(stream([{ kind: 'text', text: 'Par' }, new UpstreamError('managed', 'The model is throttled', 'throttled')]), META),
    );
    expect(events(raw).at(-1)).toEqual({
      event: 'error',
      data: { type: 'error', error: { type: 'overloaded_error', message: 'The model is throttled' } },
    });
    const { fetch } = answering(raw);
    const run = client(fetch).messages.stream({ model: 'my-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    await expect(run.finalMessage()).rejects.toMatchObject({ type: 'overloaded_error' });
  });

  test('a client that stops reading returns the metered stream', async () => {
    const source = toolStream();
    const written = frames(source, META);
    await written.next();
    await written.next();
    await written.next();
    await written.return(undefined);
    expect(source.returned()).toBe(true);
  });
});

describe('Anthropic’s error body', () => {
  test.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [409, 'invalid_request_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'overloaded_error'],
    [504, 'api_error'],
  ])('status %i has the type %s', (status, type) => {
    expect(anthropicErrorBody(status, 'x')).toEqual({ type: 'error', error: { type, message: 'x' } });
  });

  test('details join the message below 500 only', () => {
    expect(anthropicErrorBody(400, 'Invalid request body', 'more').error.message).toBe('Invalid request body: more');
    expect(anthropicErrorBody(502, 'The model failed', 'internal').error.message).toBe('The model failed');
  });

  test('the Anthropic client raises each status as its own error class, with the type', async () => {
    const { fetch } = answering(anthropicErrorBody(404, "The model 'x' does not exist"), 404);
    await expect(client(fetch).messages.create({ model: 'x', max_tokens: 1, messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({
      status: 404,
      type: 'not_found_error',
      error: { type: 'error', error: { type: 'not_found_error', message: "The model 'x' does not exist" } },
    });
  });
});
