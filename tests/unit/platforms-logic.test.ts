import { compareCatalogues } from '../../lib/catalogue/cache';
import { modelIdFromPath } from '../../lib/catalogue/model-id';
import { usd } from '../../lib/catalogue/pricing';
import { suffixedName } from '../../lib/platforms/dedicated/endpoints';
import { hostedEntry, hostedModelName, hostedTags, hostedTask } from '../../lib/platforms/hosted/api';
import { toConverseMessages } from '../../lib/platforms/managed/chat';
import { systemPromptFor } from '../../lib/platforms/prompts';
import { BadRequest } from '../../lib/errors';

describe('hosted catalogue entries from model ids', () => {
  test('an instruct model id becomes a named chat entry tagged with its family', () => {
    expect(hostedEntry('meta/llama-3.1-8b-instruct')).toEqual({
      id: 'meta/llama-3.1-8b-instruct',
      name: 'Llama 3.1 8B Instruct',
      provider: 'hosted',
      tags: ['llama', 'chat'],
      task: 'chat',
    });
  });

  test.each([
    ['mistralai/mixtral-8x7b-instruct-v0.1', 'Mixtral 8x7B Instruct v0.1'],
    ['google/gemma-2-9b-it', 'Gemma 2 9B IT'],
    ['microsoft/phi-3-mini-128k-instruct', 'Phi 3 Mini 128K Instruct'],
    ['nvidia/nemotron-4-340b-instruct', 'Nemotron 4 340B Instruct'],
  ])('%s is displayed as "%s"', (id, name) => {
    expect(hostedModelName(id)).toBe(name);
  });

  test('embedding models are tasked and tagged as embedding', () => {
    expect(hostedTask('nvidia/nv-embedqa-e5-v5')).toBe('embedding');
    expect(hostedTags('nvidia/nv-embedqa-e5-v5')).toEqual(['nv', 'embedding']);
    expect(hostedTask('snowflake/arctic-embed-l')).toBe('embedding');
  });

  test('code models get a code tag', () => {
    expect(hostedTags('meta/codellama-70b')).toEqual(['codellama', 'chat', 'code']);
  });
});

describe('systemPromptFor', () => {
  test('each family gets its own default and every prompt is a non-empty sentence', () => {
    const prompts = [
      systemPromptFor('managed', 'anthropic.claude-3-haiku-20240307-v1:0'),
      systemPromptFor('managed', 'meta.llama3-8b-instruct-v1:0'),
      systemPromptFor('managed', 'mistral.mistral-7b-instruct-v0:2'),
      systemPromptFor('hosted', 'microsoft/phi-3-mini-128k-instruct'),
      systemPromptFor('dedicated', 'my-endpoint'),
    ];
    for (const p of prompts) expect(p).toMatch(/^[A-Z].{20,}\.$/);
    expect(new Set(prompts).size).toBe(prompts.length);
  });

  test('embedding models say that they take no system prompt', () => {
    expect(systemPromptFor('managed', 'amazon.titan-embed-text-v2:0')).toContain('embedding model');
  });
});

describe('toConverseMessages', () => {
  test('merges consecutive turns of one role and drops a leading assistant turn and empty turns', () => {
    expect(
      toConverseMessages([
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: 'first' },
        { role: 'user', content: 'second' },
        { role: 'assistant', content: '  ' },
        { role: 'assistant', content: 'answer' },
        { role: 'user', content: 'third' },
      ]),
    ).toEqual([
      { role: 'user', content: [{ text: 'first\n\nsecond' }] },
      { role: 'assistant', content: [{ text: 'answer' }] },
      { role: 'user', content: [{ text: 'third' }] },
    ]);
  });
});

describe('suffixedName', () => {
  test('appends a six-hex suffix and stays within 63 characters', () => {
    expect(suffixedName('my-endpoint')).toMatch(/^my-endpoint-[0-9a-f]{6}$/);
    const long = suffixedName('e'.repeat(63));
    expect(long).toHaveLength(63);
    expect(long).toMatch(/^e{56}-[0-9a-f]{6}$/);
    expect(suffixedName('x')).not.toBe(suffixedName('x'));
  });
});

describe('modelIdFromPath', () => {
  test('a hosted id arrives with its slash or with the slash encoded, and both mean the same model', () => {
    expect(modelIdFromPath('hosted', 'meta/llama-3.1-8b-instruct')).toBe('meta/llama-3.1-8b-instruct');
    expect(modelIdFromPath('hosted', 'meta%2Fllama-3.1-8b-instruct')).toBe('meta/llama-3.1-8b-instruct');
    expect(modelIdFromPath('hosted', 'meta%2fllama-3.1-8b-instruct')).toBe('meta/llama-3.1-8b-instruct');
  });

  test('a managed id keeps its colon, encoded or not', () => {
    expect(modelIdFromPath('managed', 'anthropic.claude-3-haiku-20240307-v1:0')).toBe('anthropic.claude-3-haiku-20240307-v1:0');
    expect(modelIdFromPath('managed', 'anthropic.claude-3-haiku-20240307-v1%3A0')).toBe('anthropic.claude-3-haiku-20240307-v1:0');
  });

  test.each([
    ['hosted', 'meta/../../etc'],
    ['hosted', '%E0%A4%A'],
    ['hosted', 'a//b'],
    ['managed', 'meta/llama'],
    ['managed', 'bad id'],
  ] as const)('%s id %s is a 400 naming the field', (platform, raw) => {
    expect(() => modelIdFromPath(platform, raw)).toThrow(BadRequest);
    expect(() => modelIdFromPath(platform, raw)).toThrow(/modelId/);
  });
});

describe('compareCatalogues', () => {
  test('counts added, removed, changed and unchanged entries by key, ignoring attribute order', () => {
    const before = [
      { id: 'a', tags: ['x'], n: 1 },
      { id: 'b', n: 2 },
      { id: 'c', n: 3 },
    ];
    const after = [
      { n: 1, tags: ['x'], id: 'a' },
      { id: 'b', n: 20 },
      { id: 'd', n: 4 },
    ];
    expect(compareCatalogues(before, after, (e) => e.id)).toEqual({ total: 3, added: 1, removed: 1, changed: 1, unchanged: 1 });
  });
});

describe('usd', () => {
  test.each([
    [0.00025, '0.00025'],
    [0.000006, '0.000006'],
    [0.003, '0.003'],
    [1.5, '1.5'],
    [0, '0'],
  ])('%s is written as %s', (value, text) => {
    expect(usd(value)).toBe(text);
  });
});
