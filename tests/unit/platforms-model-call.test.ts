/**
 * The pure pieces of the model call beyond text: the JSON output check, the Converse message layout
 * of tool turns, OpenAI's wire read leniently, streamed tool-call deltas, and the family tables.
 */
import { checkJsonOutput, jsonOutputTool, regexInSchema } from '../../lib/platforms/json-output';
import { toConverseMessages } from '../../lib/platforms/managed/chat';
import { converseFeatures, embeddingFamily } from '../../lib/platforms/managed/features';
import { containerKind } from '../../lib/platforms/dedicated/features';
import { openAiMessages, openAiToolFields, readOpenAiCompletion } from '../../lib/platforms/openai';
import { openAiStreamEvents } from '../../lib/platforms/sse';
import { UpstreamError } from '../../lib/errors';
import type { ChatStreamEvent, OutputFormat } from '../../lib/platforms/types';

describe('checkJsonOutput', () => {
  const format: OutputFormat = {
    type: 'json_schema',
    name: 'person',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer', minimum: 0 } },
      required: ['name', 'age'],
      additionalProperties: false,
    },
  };

  test('a document that validates is valid, with its value', () => {
    expect(checkJsonOutput('{"name":"Ada","age":36}', format)).toEqual({ valid: true, value: { name: 'Ada', age: 36 } });
  });

  test('text that is not JSON is refused as such', () => {
    expect(checkJsonOutput('{"name":', format)).toEqual({ valid: false, problem: 'The answer is not valid JSON' });
  });

  test('a document that breaks the schema says where and how', () => {
    const result = checkJsonOutput('{"name":"Ada","age":-1,"extra":true}', format);
    expect(result.valid).toBe(false);
    expect(!result.valid && result.problem).toMatch(/^The answer does not match the schema "person": /);
    expect(!result.valid && result.problem).toMatch(/#\/age/);
  });

  test('json_object wants an object, not any JSON value', () => {
    expect(checkJsonOutput('{"a":1}', { type: 'json_object' }).valid).toBe(true);
    expect(checkJsonOutput('[1,2]', { type: 'json_object' })).toEqual({ valid: false, problem: 'The answer is not a JSON object' });
  });

  test('the JSON output tool takes the schema, and another name when a caller’s tool has it', () => {
    expect(jsonOutputTool(format)).toMatchObject({ name: 'json_output', parameters: format.schema });
    expect(jsonOutputTool({ type: 'json_object' }, [{ name: 'json_output', parameters: {} }])).toMatchObject({
      name: 'json_output_2',
      parameters: { type: 'object' },
    });
  });
});

describe('regexInSchema: a caller schema holds no regular expression', () => {
  test.each([
    [{ type: 'string', pattern: '^(a+)+$' }, 'pattern'],
    [{ type: 'object', patternProperties: { '^x': {} } }, 'patternProperties'],
    [{ type: 'string', format: 'regex' }, 'format'],
    [{ type: 'object', properties: { a: { type: 'object', properties: { b: { pattern: 'x' } } } } }, 'properties.a.properties.b.pattern'],
    [{ type: 'array', items: { anyOf: [{ type: 'integer' }, { pattern: 'x' }] } }, 'items.anyOf.1.pattern'],
    [{ type: 'array', prefixItems: [{}, { format: 'regex' }] }, 'prefixItems.1.format'],
    [{ $defs: { code: { pattern: 'x' } }, $ref: '#/$defs/code' }, '$defs.code.pattern'],
    [{ definitions: { code: { not: { pattern: 'x' } } } }, 'definitions.code.not.pattern'],
    [{ type: 'object', propertyNames: { pattern: '^[a-z]+$' } }, 'propertyNames.pattern'],
    [{ if: { type: 'string' }, then: { pattern: 'x' } }, 'then.pattern'],
    [{ type: 'object', dependentSchemas: { a: { additionalProperties: { pattern: 'x' } } } }, 'dependentSchemas.a.additionalProperties.pattern'],
  ])('finds it in %j at %s', (schema, path) => {
    expect(regexInSchema(schema)).toBe(path);
  });

  test('a property, a definition or an enum value only named pattern, and other formats, are not one', () => {
    const schema = {
      type: 'object',
      properties: { pattern: { type: 'string', format: 'email' }, patternProperties: { enum: ['pattern', { pattern: 'x' }] } },
      $defs: { pattern: { type: 'integer' } },
      dependencies: { pattern: ['format'] },
      examples: [{ pattern: '^(a+)+$' }],
    };
    expect(regexInSchema(schema)).toBeUndefined();
  });

  test('checkJsonOutput refuses such a schema without running it, however long the answer', () => {
    const format: OutputFormat = {
      type: 'json_schema',
      name: 'evil',
      schema: { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } } },
    };
    const started = performance.now();
    expect(checkJsonOutput(JSON.stringify({ a: `${'a'.repeat(40)}b` }), format)).toEqual({
      valid: false,
      problem: 'The schema "evil" could not be used: it holds a regular expression (properties.a.pattern)',
    });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('toConverseMessages', () => {
  test('tool calls are toolUse blocks, consecutive results one user message of toolResult blocks, a failure status error', () => {
    const messages = toConverseMessages([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: 'Calling both.',
        toolCalls: [
          { id: 'a', name: 'f', arguments: '{"x":1}' },
          { id: 'b', name: 'g', arguments: 'not json' },
        ],
      },
      { role: 'tool', toolCallId: 'a', content: 'one' },
      { role: 'tool', toolCallId: 'b', content: '', isError: true },
      { role: 'user', content: 'and?' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: [{ text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { text: 'Calling both.' },
          { toolUse: { toolUseId: 'a', name: 'f', input: { x: 1 } } },
          { toolUse: { toolUseId: 'b', name: 'g', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'a', content: [{ text: 'one' }] } },
          { toolResult: { toolUseId: 'b', content: [{ text: '(no output)' }], status: 'error' } },
          { text: 'and?' },
        ],
      },
    ]);
  });

  test('without tools the same history is text', () => {
    const messages = toConverseMessages(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'f', arguments: '{}' }] },
        { role: 'tool', toolCallId: 'a', content: 'one' },
      ],
      false,
    );
    expect(messages.map((m) => m.content)).toEqual([
      [{ text: 'go' }],
      [{ text: '[called the tool f with {}]' }],
      [{ text: '[the tool call a returned: one]' }],
    ]);
  });

  test('an image part is a Converse image block with its bytes', () => {
    const [message] = toConverseMessages([
      { role: 'user', content: [{ type: 'image', mediaType: 'image/jpeg', data: Buffer.from('abc').toString('base64') }] },
    ]);
    expect(message?.content?.[0]).toEqual({ image: { format: 'jpeg', source: { bytes: Buffer.from('abc') } } });
  });
});

describe('OpenAI wire', () => {
  test('tool turns and images become OpenAI messages', () => {
    expect(
      openAiMessages({
        target: 'm',
        system: 'sys',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image', mediaType: 'image/png', data: 'AAA=' },
            ],
          },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
          { role: 'tool', toolCallId: 'c1', content: 'boom', isError: true },
        ],
      }),
    ).toEqual([
      { role: 'system', content: 'sys' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA=' } },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: boom' },
    ]);
  });

  test('tools, a named choice, parallel calls and a schema format in OpenAI’s names', () => {
    expect(
      openAiToolFields({
        target: 'm',
        messages: [],
        tools: [{ name: 'f', parameters: { type: 'object' }, strict: true }],
        toolChoice: { name: 'f' },
        parallelToolCalls: false,
        outputFormat: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: true },
      }),
    ).toEqual({
      tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: true } }],
      tool_choice: { type: 'function', function: { name: 'f' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, strict: true } },
    });
  });

  test('a tool call answered the way TGI before 3.0 does (arguments as an object, a numeric id) is read as OpenAI’s', () => {
    const answer = readOpenAiCompletion({
      choices: [
        {
          message: { role: 'assistant', tool_calls: { id: 0, type: 'function', function: { name: 'f', arguments: { x: 1 } } } },
          finish_reason: 'eos_token',
        },
      ],
    });
    expect(answer).toMatchObject({ content: '', toolCalls: [{ id: '0', name: 'f', arguments: '{"x":1}' }], finishReason: 'tool_calls' });
  });
});

describe('openAiStreamEvents with tool calls', () => {
  async function events(lines: unknown[]): Promise<ChatStreamEvent[]> {
    const text = [...lines.map((l) => `data: ${JSON.stringify(l)}\n\n`), 'data: [DONE]\n\n'].join('');
    async function* bytes() {
      // Cut anywhere, as bytes arrive.
      for (let at = 0; at < text.length; at += 7) yield new TextEncoder().encode(text.slice(at, at + 7));
    }
    const all: ChatStreamEvent[] = [];
    const errors = { failed: () => new UpstreamError('hosted', 'failed'), unreadable: () => new UpstreamError('hosted', 'unreadable') };
    for await (const e of openAiStreamEvents(bytes(), errors)) all.push(e);
    return all;
  }
  const delta = (d: unknown, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

  test('the first piece of a call opens it, later pieces add arguments, calls are numbered in order', async () => {
    expect(
      await events([
        delta({ tool_calls: [{ index: 0, id: 'c0', function: { name: 'f', arguments: '' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'c1', function: { name: 'g', arguments: '{}' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
        delta({}, 'tool_calls'),
      ]),
    ).toEqual([
      { kind: 'tool_call', index: 0, id: 'c0', name: 'f' },
      { kind: 'tool_arguments', index: 0, text: '{"a":' },
      { kind: 'tool_call', index: 1, id: 'c1', name: 'g' },
      { kind: 'tool_arguments', index: 1, text: '{}' },
      { kind: 'tool_arguments', index: 0, text: '1}' },
      { kind: 'stop', finishReason: 'tool_calls' },
    ]);
  });
});

describe('family tables', () => {
  test.each([
    ['anthropic.claude-3-haiku-20240307-v1:0', { tools: true, streamTools: true, forcedTool: 'tool' }],
    ['eu.anthropic.claude-sonnet-4-20250514-v1:0', { tools: true, streamTools: true, forcedTool: 'tool' }],
    ['cohere.command-r-plus-v1:0', { tools: true, streamTools: false, forcedTool: 'none' }],
    ['mistral.mistral-large-2407-v1:0', { tools: true, streamTools: false, forcedTool: 'any' }],
    ['meta.llama3-1-70b-instruct-v1:0', { tools: true, streamTools: false, forcedTool: 'none' }],
    ['meta.llama3-8b-instruct-v1:0', { tools: false, streamTools: false, forcedTool: 'none' }],
    ['amazon.titan-text-express-v1', { tools: false, streamTools: false, forcedTool: 'none' }],
  ])('Converse features of %s', (modelId, features) => {
    expect(converseFeatures(modelId)).toEqual(features);
  });

  test('embedding bodies by family', () => {
    expect(
      ['amazon.titan-embed-text-v2:0', 'amazon.titan-embed-text-v1', 'cohere.embed-english-v3', 'cohere.embed-v4:0', 'amazon.nova-lite-v1:0'].map(
        embeddingFamily,
      ),
    ).toEqual(['titan-v2', 'titan-v1', 'cohere-v3', 'cohere-v4', undefined]);
  });

  test('container kinds by image', () => {
    expect(containerKind('683313688378.dkr.ecr.eu-west-1.amazonaws.com/tei-cpu:2.0.1-tei1.4.0-cpu-py310-ubuntu22.04')).toBe('embedding');
    expect(containerKind('763104351884.dkr.ecr.us-east-1.amazonaws.com/djl-inference:0.28.0-lmi10.0.0-cu124')).toBe('chat');
    expect(containerKind('683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1')).toBe('generic');
    expect(containerKind(undefined)).toBe('generic');
  });
});
