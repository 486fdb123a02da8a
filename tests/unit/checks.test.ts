/**
 * The request checks under generated/checks/ (ajv standalone code that `npm run generate` makes from
 * the TypeBox schemas, scripts/generate/checks.ts) must accept and refuse exactly what their TypeBox
 * schemas do, and lib/http/validation.ts words their refusals and converts query strings.
 */
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { BadRequest } from '../../lib/errors';
import { validator, type Check } from '../../lib/http/validation';
import { ROOT } from '../../scripts/generate';
import { objectSchemasOf, schemasModules } from '../../scripts/generate/checks';
import { UpsertPricingBody } from '../../generated/checks/pricing';
import { ListConversationsQuery } from '../../generated/checks/conversations';
import { ThreadChatBody } from '../../generated/checks/chat';
import { ChatCompletionBody } from '../../generated/checks/gateway';
import { MAX_MESSAGE_CHARS } from '../../lib/chat/limits';
import { toHttpError } from '../../lib/http/errors';

type Json = any;

/** Strings to try for a string schema: the first that fits its pattern and length is taken. */
const STRINGS = [
  'abc',
  '20',
  '123e4567-e89b-42d3-a456-426614174000',
  'us-east-1',
  'ada@example.com',
  'anthropic.claude-3-haiku-20240307-v1:0',
  'arn:aws:sagemaker:us-east-1:123456789012:model-package/demo/1',
  'arn:aws:iam::123456789012:role/demo',
  'arn:aws:sns:us-east-1:123456789012:model-ops-dev-alerts',
  '2030-01-01T00:00:00Z',
  's3://bucket/model.tar.gz',
  'ml.g5.xlarge',
  '/keys',
];

/**
 * TypeBox's Value.Check, plus the one schema-level rule TypeBox does not evaluate itself: an object's
 * `anyOf: [{ required: [a] }, { required: [b] }]` (DeployDedicatedBody: a model package or an image).
 */
function typeboxAccepts(schema: TSchema, value: unknown): boolean {
  return Value.Check(schema, value) && requiredAlternativesHold(schema, value);
}

function requiredAlternativesHold(schema: Json, value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  const alternatives = schema.type === 'object' && Array.isArray(schema.anyOf) ? (schema.anyOf as Json[]) : [];
  if (alternatives.length > 0 && !alternatives.some((a) => (a.required as string[]).every((k) => k in value))) return false;
  return Object.entries<Json>(schema.properties ?? {}).every(([k, p]) => requiredAlternativesHold(p, (value as Record<string, unknown>)[k]));
}

/** A value the schema should accept: with every property, or (`optional` false) with only those it needs. */
function sample(schema: Json, optional = true): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.oneOf) return sample(schema.oneOf[0], optional);
  // A tagged union's if/then/else chain (Tagged in lib/http/schemas.ts) ends in its untagged branch.
  if (schema.if) return sample(schema.else, optional);
  // An object-level anyOf of required fields is not a union of values: the object needs one of them.
  if (schema.anyOf && schema.type !== 'object') return sample(schema.anyOf[0], optional);
  switch (schema.type) {
    case 'object': {
      const alternative: string[] = schema.anyOf?.[0]?.required ?? [];
      const required: string[] = [...(schema.required ?? []), ...alternative];
      const all = Object.keys(schema.properties ?? {});
      // Required first, then optional ones up to minProperties.
      const keys = optional
        ? all
        : [...required, ...all.filter((key) => !required.includes(key))].slice(0, Math.max(required.length, schema.minProperties ?? 0));
      return Object.fromEntries(keys.map((key) => [key, sample(schema.properties[key], optional)]));
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => sample(schema.items, optional));
    case 'string': {
      const fits = (s: string) =>
        (!schema.pattern || new RegExp(schema.pattern, 'u').test(s)) &&
        s.length >= (schema.minLength ?? 0) &&
        s.length <= (schema.maxLength ?? Infinity);
      // The schema's own examples first (a date pattern, say), then the common shapes.
      return [...((schema.examples as string[] | undefined) ?? []), ...STRINGS].find(fits) ?? 'x'.repeat(Math.max(1, schema.minLength ?? 0));
    }
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
    case 'boolean':
      return true;
  }
  return undefined;
}

const WRONG_TYPE: Record<string, unknown> = { string: 12, integer: 'x', number: 'x', boolean: 'yes', object: 'x', array: 'x' };

/** Values around the schema's edges: each required property missing, each property wrong, unknown ones. */
function candidates(schema: Json): { label: string; value: unknown }[] {
  const full = sample(schema) as Record<string, unknown>;
  const minimal = sample(schema, false) as Record<string, unknown>;
  const out = [
    { label: 'every property', value: full },
    { label: 'required properties only', value: minimal },
    { label: 'an unknown property', value: { ...full, unknownProperty: 1 } },
    { label: 'an empty object', value: {} },
    { label: 'null', value: null },
    { label: 'an array', value: [] },
    { label: 'a string', value: 'text' },
  ];
  for (const [key, property] of Object.entries<Json>(schema.properties ?? {})) {
    const without = { ...full };
    delete without[key];
    out.push({ label: `without ${key}`, value: without });
    const type = property.type ?? (property.anyOf ? typeof property.anyOf[0].const : undefined);
    if (type) out.push({ label: `${key} of the wrong type`, value: { ...full, [key]: WRONG_TYPE[type] ?? null } });
    for (const [edge, length] of [
      ['at its longest', property.maxLength],
      ['too long', property.maxLength + 1],
      ['too short', property.minLength - 1],
    ]) {
      if (length >= 0) out.push({ label: `${key} ${edge}`, value: { ...full, [key]: 'a'.repeat(length) } });
    }
    for (const [edge, number] of [
      ['at its maximum', property.maximum],
      ['over its maximum', property.maximum + 1],
      ['at its minimum', property.minimum],
      ['under its minimum', property.minimum - 1],
    ]) {
      if (typeof number === 'number' && !Number.isNaN(number)) out.push({ label: `${key} ${edge}`, value: { ...full, [key]: number } });
    }
    if (property.anyOf) out.push({ label: `${key} not one of its values`, value: { ...full, [key]: 'none-of-these' } });
  }
  return out;
}

describe.each(schemasModules(ROOT))('the checks of $source', ({ source, target }) => {
  let schemas: [string, TSchema][];
  let checks: Record<string, Check<TSchema>>;
  beforeAll(async () => {
    schemas = await objectSchemasOf(ROOT, source);
    checks = await import(`${ROOT}/${target}`);
  });

  test(`are in ${target}, one for each exported object schema`, () => {
    expect(schemas.length).toBeGreaterThan(0);
    expect(
      Object.keys(checks)
        .filter((name) => !name.endsWith('$validate'))
        .sort(),
    ).toEqual(schemas.map(([name]) => name).sort());
  });

  test('accept a sample of every schema, with and without its optional properties', () => {
    for (const [name, schema] of schemas) {
      for (const value of [sample(schema), sample(schema, false)]) {
        expect({ name, value, typebox: typeboxAccepts(schema, value) }).toEqual({ name, value, typebox: true });
        expect({ name, value, check: checks[name]?.validate(structuredClone(value)) }).toEqual({ name, value, check: true });
      }
    }
  });

  test('fill in exactly the defaults the TypeBox schema declares', () => {
    for (const [name, schema] of schemas) {
      const value = sample(schema, false);
      const checked = structuredClone(value);
      checks[name]?.validate(checked);
      expect({ name, checked }).toEqual({ name, checked: Value.Default(schema, structuredClone(value)) });
    }
  });

  test('accept and refuse what the TypeBox schema accepts and refuses', () => {
    const disagreements: string[] = [];
    for (const [name, schema] of schemas) {
      for (const { label, value } of candidates(schema)) {
        const typebox = typeboxAccepts(schema, value);
        const check = checks[name]?.validate(structuredClone(value));
        if (check !== typebox) disagreements.push(`${name}, ${label}: TypeBox ${typebox}, check ${check}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});

const refusal = (fn: () => unknown): BadRequest => {
  try {
    fn();
  } catch (err) {
    if (err instanceof BadRequest) return err;
    throw err;
  }
  throw new Error('accepted');
};

describe('error wording', () => {
  const upsert = validator(UpsertPricingBody, 'body');
  const entry = { platform: 'dedicated', instanceType: 'ml.m5.large', hourly_usd: 1 };

  test('accepts a valid body and returns it unchanged', () => {
    expect(upsert.parse({ entries: [entry] })).toEqual({ entries: [entry] });
  });

  test.each([
    [{ entries: [{ ...entry, hourly_usd: -1 }] }, "Invalid field 'entries.0.hourly_usd': must be 0, or from 0.000000001 to 10000 (USD)"],
    [{ entries: [{ ...entry, hourly_usd: 1e-10 }] }, "Invalid field 'entries.0.hourly_usd': must be 0, or from 0.000000001 to 10000 (USD)"],
    [
      { entries: [{ ...entry, platform: 'other' }] },
      "Invalid field 'entries.0.platform': must be one of the allowed values (managed, hosted or dedicated)",
    ],
    [
      { entries: [{ ...entry, currency: 'EUR' }] },
      "Unknown field 'entries.0.currency' (a dedicated entry takes platform, instanceType and hourly_usd)",
    ],
    [{ entries: [{ ...entry, modelId: 'm' }] }, "Unknown field 'entries.0.modelId' (a dedicated entry takes platform, instanceType and hourly_usd)"],
    [{ entries: [{ platform: 'managed', modelId: 'm', per_1k_input_tokens_usd: 1 }] }, "Missing required field 'entries.0.per_1k_output_tokens_usd'"],
    [{ entries: [{ instanceType: 'ml.m5.large' }] }, "Missing required field 'entries.0.platform'"],
    [{}, "Missing required field 'entries'"],
    [{ entries: [] }, "Invalid field 'entries': must NOT have fewer than 1 items (1 to 100 entries)"],
    [[], 'Request body must be a JSON object'],
    ['text', 'Request body must be a JSON object'],
  ])('%j → %s', (body, message) => {
    const err = refusal(() => upsert.parse(body));
    expect(err.message).toBe(message);
    expect(toHttpError(err)?.statusCode).toBe(400);
  });

  test('string lengths count UTF-16 code units, as JavaScript (and the chat limits) count them', () => {
    const chat = validator(ThreadChatBody, 'body');
    const body = (message: string) => ({
      conversationId: '00000000-0000-4000-8000-000000000000',
      resourceId: '00000000-0000-4000-8000-000000000001',
      message,
    });
    const emoji = '\u{1F600}'; // two code units
    expect(() => chat.parse(body(emoji.repeat(MAX_MESSAGE_CHARS / 2)))).not.toThrow();
    expect(refusal(() => chat.parse(body(emoji.repeat(MAX_MESSAGE_CHARS / 2) + 'x'))).message).toMatch(
      /^Invalid field 'message': must NOT have more than/,
    );
  });
});

describe('query strings are converted strictly', () => {
  const list = validator(ListConversationsQuery, 'query');

  test('an integer string becomes a number', () => {
    expect(list.parse({ limit: '7' })).toEqual({ limit: 7 });
  });

  test('an absent parameter with a default gets it, as a number', () => {
    expect(list.parse({})).toEqual({ limit: 20 });
  });

  test.each(['2.5', 'true', '', '1e3', '0x10'])('limit=%s is refused as a string that is not an integer', (limit) => {
    expect(refusal(() => list.parse({ limit })).message).toMatch(/^Invalid field 'limit': must be integer/);
  });

  test('an unknown parameter is named', () => {
    expect(refusal(() => list.parse({ sort: 'asc' })).message).toBe("Unknown field 'sort'");
  });
});

describe('OpenAI request fields the gateway does not offer yet', () => {
  const completion = validator(ChatCompletionBody, 'body');
  const base = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

  test.each([
    ['logprobs', true],
    ['audio', { voice: 'alloy', format: 'mp3' }],
    ['functions', [{ name: 'f' }]],
  ])("%s is refused as not supported yet, with OpenAI's code unsupported_parameter and param naming it", (field, value) => {
    const err = refusal(() => completion.parse({ ...base, [field]: value }));
    expect(err.message).toBe(`Unsupported parameter: '${field}' is not supported by this gateway yet`);
    expect(toHttpError(err)).toMatchObject({ statusCode: 400, code: 'unsupported_parameter', param: field });
  });

  test.each([
    ['tools', [{ type: 'function', function: { name: 'f' } }]],
    ['response_format', { type: 'json_object' }],
    ['tool_choice', 'auto'],
    ['parallel_tool_calls', false],
    ['store', false],
  ])('%s, which the gateway now serves, is accepted', (field, value) => {
    expect(() => completion.parse({ ...base, [field]: value })).not.toThrow();
  });

  test('a misspelt field stays an unknown field', () => {
    const err = refusal(() => completion.parse({ ...base, temprature: 0.5 }));
    expect(err.code).toBeUndefined();
    expect(err.message).toBe("Unknown field 'temprature'");
  });
});
