/**
 * Shared by fuzz.test.ts and role-matrix.test.ts: the operations of docs/openapi.yaml, their handlers
 * (from functions/*\/functions.yml), a minimal valid request for each (derived from the schemas), the
 * generated fuzz cases, and the checks every response must pass (no stack, no internal names, no
 * password hash, no secret).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localDynamoClient } from '../../local/runtime';
import { StreamReader, aggregatorEventSource } from '../../local/stream-poller';
import type { CallOptions, CallResult, Handler } from '../helpers/invoke';
import { openapiDocument } from '../helpers/openapi-document';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export type Schema = Record<string, any>;
export type Role = 'user' | 'admin' | 'super_admin';
export const ROLES: Role[] = ['user', 'admin', 'super_admin'];

interface Param {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  key: string; // "POST /api/auth/login"
  method: string;
  path: string;
  roles: Role[];
  public: boolean;
  params: Param[];
  body?: Schema;
  bodyRequired: boolean;
  handlerFile: string; // functions/auth/login
  routeKey: string; // as API Gateway names the route (greedy parameters keep their '+')
  /** The gateway's /v1 operations: an API key instead of a login token, errors in OpenAI's shape. */
  apiKey: boolean;
}

const doc = openapiDocument<Schema>();

/** Resolves local $refs, merging sibling keywords (e.g. a description next to a $ref). */
function resolve(node: any): any {
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    const target = (node.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce((acc: any, part: string) => acc?.[part], doc);
    const { $ref: _ref, ...rest } = node;
    return resolve({ ...target, ...rest });
  }
  return node;
}

function handlerMap(): Map<string, { file: string; routeKey: string }> {
  const map = new Map<string, { file: string; routeKey: string }>();
  const dir = join(ROOT, 'functions');
  for (const area of readdirSync(dir)) {
    let text: string;
    try {
      text = readFileSync(join(dir, area, 'functions.yml'), 'utf8');
    } catch {
      continue;
    }
    const fns = parse(text) as Record<string, { handler: string; events?: { httpApi?: unknown }[] }>;
    for (const fn of Object.values(fns)) {
      for (const event of fn.events ?? []) {
        const api = event.httpApi as { method?: string; path?: string } | string | undefined;
        if (!api || typeof api !== 'object' || !api.method || !api.path) continue;
        const routeKey = `${api.method.toUpperCase()} ${api.path}`;
        map.set(routeKey.replace(/\{(\w+)\+\}/g, '{$1}'), { file: fn.handler.replace(/\.handler$/, ''), routeKey });
      }
    }
  }
  return map;
}

export function operations(): Operation[] {
  const handlers = handlerMap();
  const out: Operation[] = [];
  for (const [path, itemRaw] of Object.entries(doc.paths as Record<string, Schema>)) {
    const item = resolve(itemRaw);
    const shared = ((item.parameters ?? []) as unknown[]).map(resolve);
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const key = `${method.toUpperCase()} ${path}`;
      const own = ((op.parameters ?? []) as unknown[]).map(resolve);
      const byName = new Map<string, Param>();
      for (const p of [...shared, ...own]) {
        byName.set(`${p.in}:${p.name}`, { name: p.name, in: p.in, required: !!p.required, schema: resolve(p.schema ?? {}) });
      }
      const handler = handlers.get(key);
      if (!handler) throw new Error(`no handler in functions/*/functions.yml for ${key}`);
      const security = op.security ?? doc.security ?? [];
      const bodySchema = op.requestBody ? resolve(resolve(op.requestBody).content?.['application/json']?.schema) : undefined;
      out.push({
        key,
        method: method.toUpperCase(),
        path,
        roles: (op['x-roles'] ?? []) as Role[],
        public: Array.isArray(security) && security.length === 0,
        params: [...byName.values()],
        body: bodySchema,
        bodyRequired: !!resolve(op.requestBody ?? {})?.required,
        handlerFile: handler.file,
        routeKey: handler.routeKey,
        apiKey: JSON.stringify(security).includes('apiKeyAuth'),
      });
    }
  }
  return out;
}

const handlerCache = new Map<string, Handler>();
export async function loadHandler(op: Operation): Promise<Handler> {
  let h = handlerCache.get(op.handlerFile);
  if (!h) {
    const mod = (await import(`../../${op.handlerFile}`)) as { handler: Handler };
    h = mod.handler;
    handlerCache.set(op.handlerFile, h);
  }
  return h;
}

// ---------------------------------------------------------------------------------------------------
// A small JSON-schema check: enough for the keywords the document uses, so that a generated case
// knows whether its mutated value is outside the schema (then the answer must be a 4xx).

function isValid(schemaRaw: Schema | undefined, value: unknown): boolean {
  const s = resolve(schemaRaw ?? {});
  if (s.enum && !(s.enum as unknown[]).includes(value)) return false;
  switch (s.type) {
    case 'string': {
      if (typeof value !== 'string') return false;
      if (s.minLength !== undefined && value.length < s.minLength) return false;
      if (s.maxLength !== undefined && value.length > s.maxLength) return false;
      if (s.pattern && !new RegExp(s.pattern).test(value)) return false;
      return true;
    }
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      if (s.type === 'integer' && !Number.isInteger(value)) return false;
      if (s.minimum !== undefined && value < s.minimum) return false;
      if (s.maximum !== undefined && value > s.maximum) return false;
      return true;
    }
    case 'boolean':
      return typeof value === 'boolean';
    case 'array': {
      if (!Array.isArray(value)) return false;
      if (s.minItems !== undefined && value.length < s.minItems) return false;
      if (s.maxItems !== undefined && value.length > s.maxItems) return false;
      return value.every((v) => isValid(s.items, v));
    }
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
      const obj = value as Record<string, unknown>;
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const r of (s.required ?? []) as string[]) if (!(r in obj)) return false;
      if (s.minProperties !== undefined && Object.keys(obj).length < s.minProperties) return false;
      for (const [k, v] of Object.entries(obj)) {
        if (!(k in props)) {
          if (s.additionalProperties === false) return false;
          continue;
        }
        if (!isValid(props[k], v)) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

/** Query values arrive as strings; the service converts them strictly (lib/http/validation.ts). */
function queryValueValid(schema: Schema, raw: string): boolean {
  const s = resolve(schema);
  let v: unknown = raw;
  if (s.type === 'integer' && /^-?\d{1,15}$/.test(raw)) v = Number(raw);
  else if (s.type === 'number' && /^-?\d{1,15}(\.\d{1,15})?$/.test(raw)) v = Number(raw);
  else if (s.type === 'boolean' && ['true', 'false', '1', '0'].includes(raw)) v = raw === 'true' || raw === '1';
  return isValid(s, v);
}

// ---------------------------------------------------------------------------------------------------
// Minimal valid values, derived from the schema (type, enum, format, default, bounds), with sample
// strings for the few patterns a generic generator cannot satisfy.

const SAMPLES: Record<string, string> = {
  username: 'fuzz_user',
  email: 'fuzz@example.com',
  password: 'correct-horse-battery',
  region: 'us-east-1',
  cloud_region: 'us-east-1',
  modelId: 'anthropic.claude-3-haiku-20240307-v1:0',
  endpointName: 'fuzz-endpoint',
  instanceType: 'ml.g5.xlarge',
  modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/fuzz/1',
  modelDataUrl: 's3://fuzz-bucket/model.tar.gz',
  executionRoleArn: 'arn:aws:iam::123456789012:role/fuzz',
  message: 'hello',
  title: 'fuzz',
  use_case: 'fuzz',
  resource_name: 'fuzz',
  cloud_resource_id: 'fuzz-resource',
  name: 'Fuzz',
};

function sample(schemaRaw: Schema | undefined, name = ''): unknown {
  const s = resolve(schemaRaw ?? {});
  if (s.enum) return name === 'role' ? 'user' : s.enum[0];
  switch (s.type) {
    case 'string': {
      if (s.format === 'uuid') return randomUUID();
      const candidate = SAMPLES[name] ?? 'x'.repeat(Math.max(1, s.minLength ?? 1));
      return candidate;
    }
    case 'integer':
    case 'number':
      return s.default ?? s.minimum ?? 1;
    case 'boolean':
      // dryRun true everywhere: a valid request plans or checks, it does not provision.
      return name === 'dryRun' ? true : (s.default ?? false);
    case 'array':
      return Array.from({ length: Math.max(1, s.minItems ?? 0) }, () => sample(s.items));
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const out: Record<string, unknown> = {};
      for (const r of (s.required ?? []) as string[]) out[r] = sample(props[r], r);
      // PriceEntryInput: the prices a managed entry needs (described in prose, not as `required`).
      if ('platform' in out && 'per_1k_input_tokens_usd' in props) {
        Object.assign(out, { modelId: SAMPLES.modelId, per_1k_input_tokens_usd: 0.001, per_1k_output_tokens_usd: 0.002 });
      }
      const min = s.minProperties ?? 0;
      for (const k of Object.keys(props)) {
        if (Object.keys(out).length >= min) break;
        if (!(k in out)) out[k] = sample(props[k], k);
      }
      if ('dryRun' in props) out.dryRun = true;
      return out;
    }
    default:
      return 'x';
  }
}

export interface BaseRequest {
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

export function baseRequest(op: Operation): BaseRequest {
  const pathParameters: Record<string, string> = {};
  const query: Record<string, string> = {};
  for (const p of op.params) {
    if (p.in === 'path') pathParameters[p.name] = p.schema.format === 'uuid' ? randomUUID() : 'fuzz-model';
    else if (p.required) query[p.name] = String(sample(p.schema, p.name));
  }
  const out: BaseRequest = {};
  if (Object.keys(pathParameters).length) out.pathParameters = pathParameters;
  if (Object.keys(query).length) out.query = query;
  if (op.body && op.bodyRequired) out.body = sample(op.body) as Record<string, unknown>;
  return out;
}

/**
 * Operations that revoke the caller's own token (sign out everywhere): a fuzz run gives them a caller
 * of their own, or every operation after them would only meet 401s.
 */
export const REVOKES_CALLER = new Set(['POST /api/auth/logout-all']);

/** The caller of a fuzz request: a super_admin's login token, and an API key of theirs for /v1. */
export interface FuzzCaller {
  token: string;
  key: string;
}

/** A fresh super_admin (past every role guard, so the input reaches validation) with an API key. */
export async function fuzzCaller(): Promise<FuzzCaller> {
  // Loaded when asked, like the handlers under test (loadHandler); one after the other, since jest's
  // ESM loader fails on simultaneous imports of shared modules.
  const { makeUser } = await import('../helpers/users');
  const { call } = await import('../helpers/invoke');
  const { handler: createKey } = await import('../../functions/keys/create');
  const { token } = await makeUser('super_admin');
  const key = await call(createKey as Handler, { method: 'POST', token, body: { name: 'fuzz' } });
  return { token, key: key.body.key as string };
}

export function callOptions(op: Operation, req: BaseRequest & { rawBody?: string }, caller?: FuzzCaller): CallOptions {
  const params = req.pathParameters ?? {};
  const path = op.path.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? ''));
  return {
    method: op.method,
    path,
    routeKey: op.routeKey,
    pathParameters: req.pathParameters,
    query: req.query,
    token: op.apiKey ? caller?.key : caller?.token,
    body: req.rawBody !== undefined ? req.rawBody : req.body,
  };
}

// ---------------------------------------------------------------------------------------------------
// The fuzz cases.

export interface FuzzCase {
  op: string;
  category: string;
  label: string;
  request: BaseRequest & { rawBody?: string };
  /** 'reject': the input is outside the document, so the answer is a 4xx and nothing is written. */
  expect: 'reject' | 'status413' | 'no5xx';
}

const MB = 'a'.repeat(1024 * 1024);
const UNICODE = '\u0000\u202e\ud83d\ude00';

function deep(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function wrongType(s: Schema): unknown {
  switch (resolve(s).type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return '12';
    case 'boolean':
      return 'true';
    case 'array':
      return { not: 'an array' };
    case 'object':
      return ['not', 'an', 'object'];
    default:
      return null;
  }
}

export type PathSeg = string | number;
export interface Leaf {
  path: PathSeg[];
  schema: Schema;
  required: boolean;
}

/** Every property of the body, nested objects and the first item of arrays included. */
export function leaves(schemaRaw: Schema, prefix: PathSeg[] = []): Leaf[] {
  const s = resolve(schemaRaw);
  const out: Leaf[] = [];
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const required = new Set((s.required ?? []) as string[]);
  for (const [k, ps] of Object.entries(props)) {
    const r = resolve(ps);
    const path = [...prefix, k];
    out.push({ path, schema: r, required: required.has(k) });
    if (r.type === 'object') out.push(...leaves(r, path));
    if (r.type === 'array' && resolve(r.items)?.type === 'object') out.push(...leaves(resolve(r.items), [...path, 0]));
  }
  return out;
}

export function withValue(base: Record<string, unknown>, path: PathSeg[], value: unknown, remove = false): Record<string, unknown> {
  const copy = structuredClone(base);
  let node: any = copy;
  for (let i = 0; i < path.length - 1; i++) {
    const seg = path[i] as PathSeg;
    if (node[seg] === undefined || node[seg] === null || typeof node[seg] !== 'object') {
      node[seg] = typeof path[i + 1] === 'number' ? [] : {};
    }
    node = node[seg];
  }
  const last = path[path.length - 1] as PathSeg;
  if (remove) delete node[last];
  else node[last] = value;
  return copy;
}

/** Operations whose body is another's, read by the same check and dialect: their field cases would repeat that operation's. */
const BODY_FUZZED_ELSEWHERE = new Set(['POST /bedrock/model/{modelId}/converse-stream']);

export function fuzzCases(op: Operation): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const base = baseRequest(op);
  const add = (category: string, label: string, request: FuzzCase['request'], expect: FuzzCase['expect']) =>
    cases.push({ op: op.key, category, label, request, expect });

  // Whole-body cases: every endpoint parses its body (those without a schema accept none).
  add('body', 'malformed JSON', { ...base, rawBody: '{"a": 1,,' }, 'reject');
  add('body', 'a JSON array', { ...base, rawBody: '[1,2,3]' }, 'reject');
  add('body', 'a body over the size limit (1 MB)', { ...base, rawBody: JSON.stringify({ blob: MB }) }, 'status413');
  add('body', 'an extra unknown field', { ...base, body: { ...(base.body ?? {}), fuzzUnknownField: 1 } }, 'reject');

  if (op.body && !BODY_FUZZED_ELSEWHERE.has(op.key)) {
    const body = base.body ?? {};
    const schema = op.body;
    const variant = (category: string, label: string, path: PathSeg[], value: unknown) => {
      const mutated = withValue(body, path, value);
      add(category, label, { ...base, body: mutated }, isValid(schema, mutated) ? 'no5xx' : 'reject');
    };
    for (const leaf of leaves(schema)) {
      const name = leaf.path.join('.');
      const t = leaf.schema.type;
      variant('wrong type', `${name}: wrong JSON type`, leaf.path, wrongType(leaf.schema));
      variant('empty string', `${name}: empty string`, leaf.path, '');
      const big = withValue(body, leaf.path, MB);
      add('1 MB string', `${name}: 1 MB string`, { ...base, body: big }, 'status413');
      variant('deep nesting', `${name}: object nested 1000 deep`, leaf.path, deep(1000));
      variant('unicode', `${name}: NUL, RTL override and emoji`, leaf.path, UNICODE);
      if (t === 'number' || t === 'integer') {
        variant('number range', `${name}: 1e308`, leaf.path, 1e308);
        variant('number range', `${name}: -1`, leaf.path, -1);
        if (t === 'integer') variant('number range', `${name}: 1.5`, leaf.path, 1.5);
      }
      if (leaf.required) {
        const missing = withValue(body, leaf.path, undefined, true);
        add('missing field', `${name}: missing`, { ...base, body: missing }, 'reject');
      }
    }
  }

  for (const p of op.params) {
    if (p.in === 'path') {
      for (const [label, value] of [
        ['key prefix USER#abc', 'USER#abc'],
        ['path traversal ../../etc/passwd', '../../etc/passwd'],
        ['%00', '%00'],
        ['300 characters', 'x'.repeat(300)],
      ] as const) {
        // Even a value the pattern admits names nothing that exists: 4xx (404) either way.
        add('path parameter', `${p.name}: ${label}`, { ...base, pathParameters: { ...base.pathParameters, [p.name]: value } }, 'reject');
      }
    } else {
      const s = resolve(p.schema);
      const values: [string, string][] = [];
      if (s.type === 'integer' || s.type === 'number') {
        values.push(['not a number', 'abc'], ['1e308', '1e308']);
        if (s.type === 'integer') values.push(['1.5', '1.5']);
        if (s.minimum !== undefined) values.push([`below minimum`, String(s.minimum - 1)]);
        if (s.maximum !== undefined) values.push([`above maximum`, String(s.maximum + 1)]);
      } else if (s.type === 'boolean') {
        values.push(['not a boolean', 'maybe']);
      } else {
        if (s.enum) values.push(['not in the enum', 'bogus-value']);
        if (s.format === 'uuid') values.push(['not a uuid', 'USER#abc'], ['path traversal', '../../etc/passwd']);
        if (s.maxLength !== undefined) values.push(['too long', 'x'.repeat(s.maxLength + 1)]);
        if (s.pattern) values.push(['control characters', UNICODE]);
      }
      for (const [label, value] of values) {
        add(
          'query parameter',
          `${p.name}: ${label}`,
          { ...base, query: { ...base.query, [p.name]: value } },
          queryValueValid(s, value) ? 'no5xx' : 'reject',
        );
      }
      if (p.required) {
        const query = { ...base.query };
        delete query[p.name];
        add('missing query parameter', `${p.name}: missing`, { ...base, query }, 'reject');
      }
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------------
// Checks on every response.

const INTERNAL =
  /TypeError|ReferenceError|RangeError|SyntaxError|DynamoDB|ValidationException|ConditionalCheckFailed|ResourceNotFoundException|node_modules|@aws-sdk|Typebox|middy/i;
const STACK_LINE = /at .+\.(ts|js|mjs):\d+/;
const BCRYPT = /\$2[aby]\$\d\d\$/;
/** The secrets no response may carry (the test runtime sets all three). */
export const SECRET_NAMES = ['JWT_SECRET', 'SERVICE_CLOUD_SECRET_ACCESS_KEY', 'HOSTED_API_KEY'] as const;

/** Returns the problems found in a response (an empty list means it is clean). */
export function leaks(res: CallResult): string[] {
  const problems: string[] = [];
  const raw = res.raw;
  if (BCRYPT.test(raw)) problems.push('password hash');
  for (const name of SECRET_NAMES) {
    const secret = process.env[name];
    if (secret && secret.length >= 6 && raw.includes(secret)) problems.push(`secret ${name}`);
  }
  return problems;
}

export function errorProblems(res: CallResult, op?: Operation): string[] {
  const problems: string[] = [];
  const body = res.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ['body is not a JSON object'];
  if (op?.path.startsWith('/bedrock/')) {
    // Bedrock's shape, which the AWS SDKs parse: the error's name in x-amzn-errortype, {message}.
    const type = Object.entries(res.headers).find(([name]) => name.toLowerCase() === 'x-amzn-errortype')?.[1];
    if (typeof type !== 'string' || typeof body.message !== 'string') problems.push('no Bedrock error (x-amzn-errortype, {message})');
  } else if (op?.apiKey) {
    // OpenAI's shape, which its clients parse: {error: {message, type, code, param}}.
    const e = body.error;
    if (!e || typeof e !== 'object' || typeof e.message !== 'string' || typeof e.type !== 'string') problems.push('no OpenAI error {message, type}');
  } else {
    if (body.success !== false) problems.push('success is not false');
    if (typeof body.error !== 'string' && typeof body.message !== 'string') problems.push('no string error or message');
  }
  if ('stack' in body) problems.push('stack field');
  if (STACK_LINE.test(res.raw)) problems.push('stack trace line');
  const internal = INTERNAL.exec(res.raw);
  if (internal) problems.push(`internal name ${internal[0]}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// The table, for the "nothing was written" check.

let client: DynamoDBClient | undefined;

/** Keys of the table's items created or deleted since the last call, in the order written. */
let changes: { reader: StreamReader; keys: string[] } | undefined;

/**
 * The keys the table gained or lost since the last call (the audit trail and the login throttle's
 * counters aside), read from the table's stream: what a Scan before and after would show, at the cost
 * of one GetRecords however large the table has grown. The first call returns everything written
 * before it.
 */
export async function keyChanges(): Promise<string[]> {
  if (!changes) {
    const endpoint = process.env.DYNAMODB_ENDPOINT as string;
    client ??= localDynamoClient(endpoint);
    const keys: string[] = [];
    const reader = new StreamReader({
      dynamo: client,
      endpoint,
      table: process.env.TABLE_NAME as string,
      // Every record, delivered at once; an update of an item that was there before changes no key.
      settings: { ...aggregatorEventSource(), filterPatterns: [], maximumRetryAttempts: 0 },
      onGiveUp: 'throw',
      handler: async (event) => {
        for (const record of event.Records) {
          if (record.eventName === 'MODIFY') continue;
          const pk = record.dynamodb?.Keys?.PK?.S ?? '';
          if (pk === 'AUDIT' || pk.startsWith('LOGINFAIL#')) continue;
          keys.push(`${record.eventName} ${pk}|${record.dynamodb?.Keys?.SK?.S ?? ''}`);
        }
      },
    });
    changes = { reader, keys };
  }
  while ((await changes.reader.poll()) > 0);
  return changes.keys.splice(0);
}

export function closeTableClient(): void {
  changes?.reader.close();
  changes = undefined;
  client?.destroy();
  client = undefined;
}
