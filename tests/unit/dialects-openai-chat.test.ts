/**
 * lib/dialects/openai-chat.ts: OpenAI's chat completions read into the canonical request, and
 * replies and metered streams written back, checked against the `openai` client's own parsers.
 */
import OpenAI from 'openai';
import { answer, frames, parse, type OpenAiChatBody } from '../../lib/dialects/openai-chat';
import { UpstreamError } from '../../lib/errors';
import { toHttpError } from '../../lib/http/errors';
import { JPEG, META, PNG, SETTLED, answering, events, stream, text, refusal, reply } from '../helpers/dialects';

const body = (fields: Partial<OpenAiChatBody>): OpenAiChatBody => ({ model: 'my-model', messages: [{ role: 'user', content: 'Hi' }], ...fields });

const weather = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const callMessage = {
  role: 'assistant' as const,
  content: null,
  tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
};

const client = (fetch: ReturnType<typeof answering>['fetch']) =>
  new OpenAI({ apiKey: 'mo_test', baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 });

describe('reading a chat completion request', () => {
  test('system and developer messages become the system prompt, in order, and the rest the conversation', () => {
    const call = parse(
      body({
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          {
            role: 'developer',
            content: [
              { type: 'text', text: 'Use ' },
              { type: 'text', text: 'French.' },
            ],
          },
          { role: 'assistant', content: 'Bonjour' },
          { role: 'user', content: 'Again' },
        ],
        max_tokens: 50,
        temperature: 0.2,
        top_p: 0.9,
        stop: 'END',
      }),
    );
    expect(call).toEqual({
      model: 'my-model',
      stream: false,
      includeUsage: false,
      request: {
        system: 'Be brief.\n\nUse French.',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Bonjour' },
          { role: 'user', content: 'Again' },
        ],
        maxTokens: 50,
        temperature: 0.2,
        topP: 0.9,
        stop: ['END'],
      },
    });
  });

  test('max_tokens wins over max_completion_tokens, and without either the request names no limit', () => {
    expect(parse(body({ max_tokens: 10, max_completion_tokens: 20 })).request.maxTokens).toBe(10);
    expect(parse(body({ max_completion_tokens: 20 })).request.maxTokens).toBe(20);
    expect(parse(body({})).request).not.toHaveProperty('maxTokens');
  });

  test('stream and stream_options.include_usage are the call’s options', () => {
    expect(parse(body({ stream: true, stream_options: { include_usage: true } }))).toMatchObject({ stream: true, includeUsage: true });
    expect(parse(body({ stream: true, stream_options: null }))).toMatchObject({ stream: true, includeUsage: false });
  });

  test('function tools, a named tool choice and parallel_tool_calls become the canonical tools', () => {
    const call = parse(
      body({
        tools: [
          { type: 'function', function: { name: 'get_weather', description: 'Weather now', parameters: weather.function.parameters, strict: true } },
        ],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
      }),
    );
    expect(call.request).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather now', parameters: weather.function.parameters, strict: true }],
      toolChoice: { name: 'get_weather' },
      parallelToolCalls: false,
    });
  });

  test('a function without parameters takes no arguments, and a schema without a type is one of an object', () => {
    const call = parse(
      body({
        tools: [
          { type: 'function', function: { name: 'now' } },
          { type: 'function', function: { name: 'f', parameters: { properties: {} } } },
        ],
      }),
    );
    expect(call.request.tools?.map((t) => t.parameters)).toEqual([
      { type: 'object', properties: {} },
      { type: 'object', properties: {} },
    ]);
  });

  test.each(['auto', 'none', 'required'] as const)('tool_choice %s passes as it is', (choice) => {
    expect(parse(body({ tools: [weather], tool_choice: choice })).request.toolChoice).toBe(choice);
  });

  test('a tool loop (call, result, answer) reads as assistant tool calls followed by their results', () => {
    const call = parse(
      body({
        tools: [weather],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          callMessage,
          { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '18 C, sunny' }] },
        ],
      }),
    );
    expect(call.request.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
      { role: 'tool', toolCallId: 'call_1', content: '18 C, sunny' },
    ]);
  });

  test('response_format json_object and json_schema (with strict) become the output format; text is none', () => {
    expect(parse(body({ response_format: { type: 'json_object' } })).request.outputFormat).toEqual({ type: 'json_object' });
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    expect(
      parse(body({ response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } } })).request.outputFormat,
    ).toEqual({
      type: 'json_schema',
      name: 'reply',
      schema,
      strict: true,
    });
    expect(parse(body({ response_format: { type: 'text' } })).request).not.toHaveProperty('outputFormat');
  });

  test('image_url parts with data: URLs become image parts beside the text', () => {
    const call = parse(
      body({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}`, detail: 'low' } },
              { type: 'image_url', image_url: { url: `data:image/jpg;base64,${JPEG}` } },
            ],
          },
        ],
      }),
    );
    expect(call.request.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', mediaType: 'image/png', data: PNG },
        { type: 'image', mediaType: 'image/jpeg', data: JPEG },
      ],
    });
  });

  test('an http(s) image URL is refused with a 400 that says to send a data: URL', () => {
    const err = refusal(() =>
      parse(body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] })),
    );
    expect(err.message).toBe(
      "Invalid field 'messages.0.content.0.image_url.url': image URLs are not fetched: send the image inline as a data: URL (data:image/png;base64,...)",
    );
    expect(err.param).toBe('messages.0.content.0.image_url.url');
    expect(toHttpError(err)?.statusCode).toBe(400);
  });

  test.each([
    ['a media type the models do not read', 'data:image/bmp;base64,Qk0=', 'the image type must be image/png, image/jpeg, image/gif or image/webp'],
    ['data that is not base64', 'data:image/png;base64,not base64!', 'the image data must be base64'],
    ['a data: URL without base64', `data:image/png,${PNG}`, 'the data: URL must carry base64'],
    ['bytes of another format than named', `data:image/png;base64,${JPEG}`, 'the data is not a image/png image (it is image/jpeg)'],
    ['another scheme', 'ftp://example.com/cat.png', 'must be a data: URL'],
  ])('an image with %s is refused naming the field', (_, url, why) => {
    const err = refusal(() => parse(body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] })));
    expect(err.message).toContain(why);
    expect(err.param).toBe('messages.0.content.0.image_url.url');
  });

  test('an image over 3.75 MB is refused, one at the limit is read', () => {
    const image = (bytes: number) => {
      const data = Buffer.alloc(bytes);
      Buffer.from(PNG, 'base64').copy(data);
      return `data:image/png;base64,${data.toString('base64')}`;
    };
    const at = (bytes: number) => body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: image(bytes) } }] }] });
    expect(() => parse(at(3_932_160))).not.toThrow();
    expect(refusal(() => parse(at(3_932_161))).message).toContain('the image is 3932161 bytes; the limit is 3932160 bytes');
  });

  test('more than 20 images in one request are refused', () => {
    const images = Array.from({ length: 21 }, () => ({ type: 'image_url' as const, image_url: { url: `data:image/png;base64,${PNG}` } }));
    expect(refusal(() => parse(body({ messages: [{ role: 'user', content: images }] }))).message).toBe(
      "Invalid field 'messages': a request may carry at most 20 images (this one has 21)",
    );
  });

  test('a tool message that answers no call of the assistant message before it is refused', () => {
    const err = refusal(() =>
      parse(
        body({
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'tool', tool_call_id: 'call_9', content: 'x' },
          ],
        }),
      ),
    );
    expect(err.message).toBe(
      "Invalid field 'messages.1.tool_call_id': a tool message answers 'call_9', which is not a tool call of the assistant turn right before it",
    );
  });

  test('an assistant tool call left without its result is refused, naming the assistant message', () => {
    const err = refusal(() => parse(body({ messages: [{ role: 'user', content: 'Hi' }, callMessage, { role: 'user', content: 'And?' }] })));
    expect(err.message).toBe(
      "Invalid field 'messages.1': the tool call 'call_1' has no tool message after it; every call needs its result before the conversation goes on",
    );
  });

  test('a call answered twice is refused', () => {
    const result = { role: 'tool' as const, tool_call_id: 'call_1', content: 'x' };
    expect(refusal(() => parse(body({ messages: [{ role: 'user', content: 'Hi' }, callMessage, result, result] }))).message).toBe(
      "Invalid field 'messages.3.tool_call_id': the tool call 'call_1' is answered twice",
    );
  });

  test('an assistant message with neither content nor tool calls is refused', () => {
    expect(
      refusal(() =>
        parse(
          body({
            messages: [
              { role: 'user', content: 'Hi' },
              { role: 'assistant', content: null },
            ],
          }),
        ),
      ).message,
    ).toBe("Invalid field 'messages.1.content': an assistant message needs content or tool_calls");
  });

  test('a conversation without a user message is refused', () => {
    expect(refusal(() => parse(body({ messages: [{ role: 'system', content: 'x' }] }))).message).toBe(
      "Invalid field 'messages': at least one message must have the role 'user'",
    );
  });

  test('two tools of one name, a tool choice naming no tool, and a required choice without tools are refused', () => {
    expect(refusal(() => parse(body({ tools: [weather, weather] }))).param).toBe('tools.1');
    expect(refusal(() => parse(body({ tools: [weather], tool_choice: { type: 'function', function: { name: 'other' } } }))).message).toBe(
      "Invalid field 'tool_choice': there is no tool named 'other' among the tools",
    );
    expect(refusal(() => parse(body({ tool_choice: 'required' }))).param).toBe('tool_choice');
  });

  test('tool parameters that are not an object schema are refused', () => {
    expect(refusal(() => parse(body({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string' } } }] }))).message).toBe(
      "Invalid field 'tools.0.function.parameters': must be a JSON Schema of type object",
    );
  });
});

describe('answering a chat completion', () => {
  test('a text reply is a chat.completion with the usage settled', () => {
    expect(answer(reply({ finishReason: 'length' }), SETTLED, META)).toEqual({
      id: 'chatcmpl-123e4567e89b42d3a456426614174000',
      object: 'chat.completion',
      created: META.created,
      model: 'my-model',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello', refusal: null }, logprobs: null, finish_reason: 'length' }],
      usage: {
        prompt_tokens: 12,
        completion_tokens: 7,
        completion_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 19,
        prompt_tokens_details: { cached_tokens: 0 },
      },
      service_tier: 'default',
      system_fingerprint: null,
    });
  });

  test('a reply that only calls tools has content null, the calls, and finish_reason tool_calls', () => {
    const body = answer(reply({ content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }), SETTLED, META);
    expect(body.choices[0]).toEqual({
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      logprobs: null,
      finish_reason: 'tool_calls',
    });
  });

  test('the openai client reads the answer, tool calls included', async () => {
    const { fetch } = answering(
      answer(reply({ content: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{}' }] }), SETTLED, META),
    );
    const completion = await client(fetch).chat.completions.create({ model: 'my-model', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({ id: 'call_1', function: { name: 'get_weather', arguments: '{}' } });
    expect(completion.usage?.total_tokens).toBe(19);
  });
});

describe('streaming a chat completion', () => {
  test('text deltas come after the role, then the finish reason, the usage with its cost, and [DONE]', async () => {
    const raw = await text(
      frames(
        stream([
          { kind: 'text', text: 'Hel' },
          { kind: 'text', text: 'lo' },
          { kind: 'stop', finishReason: 'stop' },
          { kind: 'usage', tokensIn: 99, tokensOut: 99 },
          { kind: 'settled', ...SETTLED },
        ]),
        META,
        { includeUsage: true },
      ),
    );
    const chunks = events(raw).map((e) => e.data);
    expect(chunks.slice(0, -1).every((c) => c.id === 'chatcmpl-123e4567e89b42d3a456426614174000' && c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.map((c) => (c === '[DONE]' ? c : (c.choices[0]?.delta ?? 'usage')))).toEqual([
      { role: 'assistant', content: '', refusal: null },
      { content: 'Hel' },
      { content: 'lo' },
      {},
      'usage',
      '[DONE]',
    ]);
    expect(chunks[3].choices[0].finish_reason).toBe('stop');
    // The settled counts, not the platform's own: the call is recorded as settled.
    expect(chunks[4]).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19, cost_usd: 0.000321 } });
  });

  test('without include_usage there is no usage chunk', async () => {
    const raw = await text(
      frames(
        stream([
          { kind: 'text', text: 'x' },
          { kind: 'settled', ...SETTLED },
        ]),
        META,
        { includeUsage: false },
      ),
    );
    expect(events(raw).some((e) => e.data?.usage)).toBe(false);
  });

  test('tool calls stream as OpenAI sends them: index, id, type and name first, then the arguments in pieces', async () => {
    const raw = await text(
      frames(
        stream([
          { kind: 'tool_call', index: 3, id: 'call_1', name: 'get_weather' },
          { kind: 'tool_arguments', index: 3, text: '{"city":' },
          { kind: 'tool_arguments', index: 3, text: '"Paris"}' },
          { kind: 'tool_call', index: 5, id: 'call_2', name: 'get_time' },
          { kind: 'tool_arguments', index: 5, text: '{}' },
          { kind: 'stop', finishReason: 'tool_calls' },
          { kind: 'settled', ...SETTLED },
        ]),
        META,
        { includeUsage: false },
      ),
    );
    const deltas = events(raw)
      .filter((e) => e.data !== '[DONE]')
      .map((e) => e.data.choices[0]);
    expect(deltas.map((c) => c.delta)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      },
      { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
      { tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
      {},
    ]);
    expect(deltas.at(-1).finish_reason).toBe('tool_calls');
  });

  test('the openai client assembles the streamed text and tool calls into the same completion as the answer', async () => {
    const toolCalls = [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }];
    const raw = await text(
      frames(
        stream([
          { kind: 'text', text: 'Let me look.' },
          { kind: 'tool_call', index: 1, id: 'call_1', name: 'get_weather' },
          { kind: 'tool_arguments', index: 1, text: '{"city":' },
          { kind: 'tool_arguments', index: 1, text: '"Paris"}' },
          { kind: 'stop', finishReason: 'tool_calls' },
          { kind: 'settled', ...SETTLED },
        ]),
        META,
        { includeUsage: true },
      ),
    );
    const { fetch } = answering(raw);
    const streamed = await client(fetch)
      .chat.completions.stream({ model: 'my-model', messages: [{ role: 'user', content: 'Hi' }], stream_options: { include_usage: true } })
      .finalChatCompletion();
    const expected = answer(reply({ content: 'Let me look.', toolCalls, finishReason: 'tool_calls' }), SETTLED, META);
    expect(streamed.choices[0]?.message).toMatchObject(expected.choices[0]!.message);
    expect(streamed.choices[0]?.finish_reason).toBe('tool_calls');
    expect(streamed.usage).toMatchObject(expected.usage);
  });

  test('a reply that produced nothing still announces the role and finishes', async () => {
    const raw = await text(frames(stream([{ kind: 'settled', tokensIn: 3, tokensOut: 0, cost: 0 }]), META, { includeUsage: false }));
    expect(events(raw).map((e) => (e.data === '[DONE]' ? e.data : e.data.choices[0].delta))).toEqual([
      { role: 'assistant', content: '', refusal: null },
      {},
      '[DONE]',
    ]);
  });

  test('a platform failure mid-stream is OpenAI’s streaming error and no [DONE], which the openai client raises', async () => {
    const raw = await text(
      frames(stream([{ kind: 'text', text: 'Par' }, new UpstreamError('managed', 'The model timed out', 'timed_out')]), META, { includeUsage: true }),
    );
    const last = events(raw).at(-1);
    expect(last?.data).toEqual({ error: { message: 'The model timed out', type: 'api_error', code: null, param: null } });
    expect(raw).not.toContain('[DONE]');
    const { fetch } = answering(raw);
    const chunks = await client(fetch).chat.completions.create({ model: 'my-model', messages: [{ role: 'user', content: 'Hi' }], stream: true });
    await expect(
      (async () => {
        for await (const _ of chunks) void _;
      })(),
    ).rejects.toThrow('The model timed out');
  });

  test('a failure the service does not know is reported as a plain 502, with no internals', async () => {
    const raw = await text(frames(stream([new Error('socket hang up at 10.0.0.3')]), META, { includeUsage: false }));
    expect(events(raw)).toEqual([{ data: { error: { message: 'The model call failed', type: 'api_error', code: null, param: null } } }]);
  });

  test('a client that stops reading returns the metered stream, so that the call stops and settles', async () => {
    const source = stream([
      { kind: 'text', text: 'a' },
      { kind: 'text', text: 'b' },
      { kind: 'settled', ...SETTLED },
    ]);
    const written = frames(source, META, { includeUsage: false });
    await written.next();
    await written.return(undefined);
    expect(source.returned()).toBe(true);
  });
});
