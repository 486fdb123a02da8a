/**
 * lib/dialects/openai-responses.ts: the stateless Responses API read into the canonical request, and
 * replies and metered streams written back as the `openai` client's Responses parsers expect them.
 */
import OpenAI from 'openai';
import { answer, frames, parse, type ResponsesBody, type ResponsesCall } from '../../lib/dialects/openai-responses';
import { TooManyRequests, UpstreamError } from '../../lib/errors';
import { META, PNG, SETTLED, answering, events, stream, text, refusal, reply } from '../helpers/dialects';

const body = (fields: Partial<ResponsesBody>): ResponsesBody => ({ model: 'my-model', input: 'Hi', ...fields });

const client = (fetch: ReturnType<typeof answering>['fetch']) =>
  new OpenAI({ apiKey: 'mo_test', baseURL: 'http://gateway.test/v1', fetch, maxRetries: 0 });
const weather = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: true,
};
const plain: ResponsesCall = parse(body({}));

describe('reading a Responses request', () => {
  test('a string input is one user message, and instructions the system prompt', () => {
    expect(parse(body({ instructions: 'Be brief.', max_output_tokens: 64, temperature: 0.5, top_p: 0.8 }))).toMatchObject({
      model: 'my-model',
      stream: false,
      request: { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }], maxTokens: 64, temperature: 0.5, topP: 0.8 },
    });
  });

  test('message items of every role: system and developer join the instructions, user parts keep their order', () => {
    const call = parse(
      body({
        instructions: 'Be brief.',
        input: [
          { role: 'developer', content: 'Answer in French.' },
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'What is this?' },
              { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
            ],
          },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Un pixel.' }], id: 'msg_1', status: 'completed' },
          { type: 'message', role: 'user', content: 'Merci' },
        ],
      }),
    );
    expect(call.request).toEqual({
      system: 'Be brief.\n\nAnswer in French.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', mediaType: 'image/png', data: PNG },
          ],
        },
        { role: 'assistant', content: 'Un pixel.' },
        { role: 'user', content: 'Merci' },
      ],
    });
  });

  test('a tool loop: an assistant message and the function calls after it are one turn, then the outputs', () => {
    const call = parse(
      body({
        tools: [weather],
        input: [
          { role: 'user', content: 'Weather in Paris and Rome?' },
          { role: 'assistant', content: 'Let me look.' },
          { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}', id: 'fc_2', status: 'completed' },
          { type: 'function_call_output', call_id: 'call_1', output: '18 C' },
          { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: '24 C' }] },
        ],
      }),
    );
    expect(call.request.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        toolCalls: [
          { id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', content: '18 C' },
      { role: 'tool', toolCallId: 'call_2', content: [{ type: 'text', text: '24 C' }] },
    ]);
  });

  test('the flat function tools, a named tool choice and parallel_tool_calls become the canonical tools', () => {
    const call = parse(
      body({
        tools: [{ ...weather, description: 'Weather now' }],
        tool_choice: { type: 'function', name: 'get_weather' },
        parallel_tool_calls: false,
      }),
    );
    expect(call.request).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather now', parameters: weather.parameters, strict: true }],
      toolChoice: { name: 'get_weather' },
      parallelToolCalls: false,
    });
  });

  test('text.format json_schema and json_object become the output format', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(parse(body({ text: { format: { type: 'json_schema', name: 'answer', schema, strict: true } } })).request.outputFormat).toEqual({
      type: 'json_schema',
      name: 'answer',
      schema,
      strict: true,
    });
    expect(parse(body({ text: { format: { type: 'json_object' } } })).request.outputFormat).toEqual({ type: 'json_object' });
    expect(parse(body({ text: { format: { type: 'text' } } })).request).not.toHaveProperty('outputFormat');
  });

  test('store, metadata and user are accepted and change nothing in the request', () => {
    expect(parse(body({ metadata: { team: 'a' }, user: 'u1' })).request).toEqual(plain.request);
  });

  test('a stored conversation given for previous_response_id comes before the input, and the answer names it', () => {
    const previous = {
      system: ['Be brief.'],
      turns: [
        { role: 'user' as const, content: 'First' },
        { role: 'assistant' as const, content: 'One' },
      ],
    };
    const call = parse(body({ previous_response_id: 'resp_1', instructions: 'Now' }), previous);
    expect(call.request.messages).toEqual([...previous.turns, { role: 'user', content: 'Hi' }]);
    expect(call.request.system).toBe('Now\n\nBe brief.');
    // The instructions are the request's own: a continuation does not keep them.
    expect(call.conversation).toEqual({ system: ['Be brief.'], turns: call.request.messages });
    expect(call.echo).toMatchObject({ previous_response_id: 'resp_1', store: true });
    expect(parse(body({ previous_response_id: null })).request).toEqual(plain.request);
  });

  test('store defaults to true and false is kept', () => {
    expect(plain.echo.store).toBe(true);
    expect(parse(body({ store: false })).echo.store).toBe(false);
  });

  test('function results continue the calls of the stored conversation', () => {
    const previous = {
      system: [],
      turns: [
        { role: 'user' as const, content: 'Weather?' },
        { role: 'assistant' as const, content: '', toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{}' }] },
      ],
    };
    const call = parse(
      body({ previous_response_id: 'resp_1', input: [{ type: 'function_call_output', call_id: 'call_1', output: 'Sunny' }] }),
      previous,
    );
    expect(call.request.messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'call_1', content: 'Sunny' });
  });

  test('a conversation id is refused, naming previous_response_id instead', () => {
    expect(refusal(() => parse(body({ conversation: 'conv_1' }))).param).toBe('conversation');
  });

  test('an item reference is refused, saying to send the item (and how, with the Vercel AI SDK)', () => {
    const err = refusal(() =>
      parse(
        body({
          input: [
            { role: 'user', content: 'Hi' },
            { type: 'item_reference', id: 'msg_1' },
          ],
        }),
      ),
    );
    expect(err.message).toBe(
      "Invalid field 'input.1': item references are not supported: send the item itself, or continue a stored response with previous_response_id (with the Vercel AI SDK, set providerOptions.openai.store to false)",
    );
  });

  test('an image given by file id, or an http URL, is refused naming the field', () => {
    expect(refusal(() => parse(body({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] }))).param).toBe(
      'input.0.content.0.file_id',
    );
    expect(refusal(() => parse(body({ input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'http://x/y.png' }] }] }))).param).toBe(
      'input.0.content.0.image_url',
    );
  });

  test('an image in a system message is refused', () => {
    expect(
      refusal(() =>
        parse(
          body({
            input: [
              { role: 'system', content: [{ type: 'input_image', image_url: `data:image/png;base64,${PNG}` }] },
              { role: 'user', content: 'x' },
            ],
          }),
        ),
      ).message,
    ).toBe("Invalid field 'input.0.content.0': a system message cannot carry images");
  });

  test('a function_call_output without its call, and a call without its output, are refused', () => {
    expect(
      refusal(() =>
        parse(
          body({
            input: [
              { role: 'user', content: 'x' },
              { type: 'function_call_output', call_id: 'c', output: 'y' },
            ],
          }),
        ),
      ).message,
    ).toBe("Invalid field 'input.1.call_id': a function_call_output answers 'c', which is not a function_call of the assistant turn right before it");
    expect(
      refusal(() =>
        parse(
          body({
            input: [
              { role: 'user', content: 'x' },
              { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
            ],
          }),
        ),
      ).message,
    ).toBe(
      "Invalid field 'input.1': the function_call 'c' has no function_call_output after it; every call needs its result before the conversation goes on",
    );
  });

  test('input without a user message is refused', () => {
    expect(refusal(() => parse(body({ input: [{ role: 'developer', content: 'x' }] }))).param).toBe('input');
  });

  test('the response echoes the settings as the API does', () => {
    const call = parse(
      body({ instructions: 'Be brief.', tools: [weather], text: { format: { type: 'json_object' } }, metadata: { a: 'b' }, user: 'u1' }),
    );
    expect(call.echo).toEqual({
      reasoning: null,
      instructions: 'Be brief.',
      max_output_tokens: null,
      temperature: null,
      top_p: null,
      tools: [{ type: 'function', name: 'get_weather', description: null, parameters: weather.parameters, strict: true }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      text: { format: { type: 'json_object' } },
      metadata: { a: 'b' },
      user: 'u1',
      service_tier: 'auto',
      store: true,
      previous_response_id: null,
    });
  });
});

describe('answering a Responses request', () => {
  test('a text reply is a completed response with one message item and the usage settled', () => {
    const body = answer(reply(), SETTLED, META, plain);
    expect(body).toMatchObject({
      id: 'resp_123e4567e89b42d3a456426614174000',
      object: 'response',
      created_at: META.created,
      status: 'completed',
      error: null,
      incomplete_details: null,
      model: 'my-model',
      store: true,
      previous_response_id: null,
      output: [
        {
          id: 'msg_123e4567e89b42d3a456426614174000_0',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }],
        },
      ],
      usage: {
        input_tokens: 12,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: 7,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 19,
      },
    });
  });

  test('tool calls are function_call items after the message', () => {
    const body = answer(
      reply({ content: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }),
      SETTLED,
      META,
      plain,
    );
    expect(body.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(body.output[1]).toEqual({
      id: 'fc_123e4567e89b42d3a456426614174000_1',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
  });

  test('a reply cut at max_output_tokens is incomplete, and says why', () => {
    const body = answer(reply({ finishReason: 'length' }), SETTLED, META, plain);
    expect(body).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, output: [{ status: 'incomplete' }] });
  });

  test('the openai client reads the answer and gives its output_text', async () => {
    const { fetch } = answering(answer(reply({ content: 'Bonjour' }), SETTLED, META, plain));
    const response = await client(fetch).responses.create({ model: 'my-model', input: 'Hi' });
    expect(response.output_text).toBe('Bonjour');
    expect(response.usage?.total_tokens).toBe(19);
  });
});

const toolStream = () =>
  stream([
    { kind: 'text', text: 'Let me ' },
    { kind: 'text', text: 'look.' },
    { kind: 'tool_call', index: 1, id: 'call_1', name: 'get_weather' },
    { kind: 'tool_arguments', index: 1, text: '{"city":' },
    { kind: 'tool_arguments', index: 1, text: '"Paris"}' },
    { kind: 'stop', finishReason: 'tool_calls' },
    { kind: 'usage', tokensIn: 99, tokensOut: 99 },
    { kind: 'settled', ...SETTLED },
  ]);

describe('streaming a Responses request', () => {
  test('the events come in the Responses API’s order, numbered from 0, each named as its type', async () => {
    const list = events(await text(frames(toolStream(), META, plain)));
    expect(list.map((e) => e.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(list.every((e) => e.data.type === e.event)).toBe(true);
    expect(list.map((e) => e.data.sequence_number)).toEqual(list.map((_, i) => i));
    expect(list[10]?.data).toMatchObject({ item_id: 'fc_123e4567e89b42d3a456426614174000_1', output_index: 1, delta: '{"city":' });
    expect(list[12]?.data).toMatchObject({ name: 'get_weather', arguments: '{"city":"Paris"}' });
  });

  test('response.completed carries the whole response, the usage settled and its cost', async () => {
    const list = events(await text(frames(toolStream(), META, plain)));
    const completed = list.at(-1)?.data.response;
    expect(completed.status).toBe('completed');
    expect(completed.usage).toEqual({
      input_tokens: 12,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 7,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 19,
      cost_usd: 0.000321,
    });
    const expected = answer(
      reply({ content: 'Let me look.', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] }),
      SETTLED,
      META,
      plain,
    );
    expect({ ...completed, usage: expected.usage }).toEqual(expected);
  });

  test('the openai client’s stream helper assembles the same response, with output_text', async () => {
    const { fetch } = answering(await text(frames(toolStream(), META, plain)));
    const events: string[] = [];
    const run = client(fetch).responses.stream({ model: 'my-model', input: 'Hi' });
    run.on('event', (e) => events.push(e.type));
    const final = await run.finalResponse();
    expect(final.output_text).toBe('Let me look.');
    expect(final.output[1]).toMatchObject({ type: 'function_call', call_id: 'call_1', arguments: '{"city":"Paris"}' });
    expect(events).toContain('response.function_call_arguments.delta');
  });

  test('a reply cut at the token limit ends with response.incomplete', async () => {
    const list = events(
      await text(
        frames(
          stream([
            { kind: 'text', text: 'abc' },
            { kind: 'stop', finishReason: 'length' },
            { kind: 'settled', ...SETTLED },
          ]),
          META,
          plain,
        ),
      ),
    );
    expect(list.at(-1)).toMatchObject({
      event: 'response.incomplete',
      data: { response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } },
    });
    expect(list.at(-2)?.data.item.status).toBe('incomplete');
  });

  test('a reply with nothing in it is one empty message, as answered without streaming', async () => {
    const list = events(await text(frames(stream([{ kind: 'settled', ...SETTLED }]), META, plain)));
    const expected = answer(reply({ content: '' }), SETTLED, META, plain);
    expect(list.at(-1)?.data.response.output).toEqual(expected.output);
  });

  test('a platform failure mid-stream ends it with response.failed, its error and what was written', async () => {
    const list = events(
      await text(frames(stream([{ kind: 'text', text: 'Par' }, new UpstreamError('hosted', 'The hosted model failed', 'failed')]), META, plain)),
    );
    const last = list.at(-1);
    expect(last?.event).toBe('response.failed');
    expect(last?.data.response).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'The hosted model failed' }, usage: null });
    expect(last?.data.response.output[0].type).toBe('message');
  });

  test('a rate limit mid-stream is reported with rate_limit_exceeded', async () => {
    const list = events(await text(frames(stream([new TooManyRequests('Slow down', 3)]), META, plain)));
    expect(list.at(-1)?.data.response.error).toEqual({ code: 'rate_limit_exceeded', message: 'Slow down' });
  });

  test('a client that stops reading returns the metered stream', async () => {
    const source = toolStream();
    const written = frames(source, META, plain);
    await written.next();
    await written.next();
    await written.next();
    await written.return(undefined);
    expect(source.returned()).toBe(true);
  });
});
