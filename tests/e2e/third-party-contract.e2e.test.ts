import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, OpenAPIRouter, type Operation } from 'openapi-backend';
import { openapiDocument } from '../helpers/openapi-document';
import { leaves, withValue } from '../integration/fuzz-cases';

/**
 * The contract checked by a validator this project did not write: openapi-backend (request and
 * response validation from docs/openapi.yaml, with ajv's JSON Schema 2020-12 dialect, OpenAPI 3.1's)
 * on real HTTP through the local stack (the front door in front of serverless-offline, as `npm start`
 * runs them).
 *
 * Driven by the document: every operation it lists gets a request the validator accepts, built from
 * its schemas, and mutations of it (a missing body, malformed JSON, a wrong type for each field, each
 * required field left out, an unknown field, path and query values outside their schemas). Then:
 *   - every answer's status is documented for the operation and its body matches that response's
 *     schema, as openapi-backend reads it;
 *   - every request the validator rejects is rejected by the service: a 4xx in the document's error
 *     shape (`success: false` on /api, OpenAI's `error` object on /v1);
 *   - nothing reaches a 5xx;
 *   - a body under another Content-Type (text/plain) is a documented 415 in the error shape.
 * A request outside every schema is only a mutation the validator judges: what it accepts is held to
 * "no 5xx and a documented answer", what it refuses to "a documented 4xx".
 *
 * Undocumented query parameters are not sent: openapi-backend refuses them, while OpenAPI leaves them
 * open and API Gateway passes them on, so the service ignores them (a later version may add some).
 */

const BASE = () => process.env.E2E_FRONT_DOOR_URL as string;
const tag = randomUUID().slice(0, 8);
const definition = openapiDocument();

const ajvs = new Map<string, Ajv2020>();
const api = new OpenAPIBackend({
  definition,
  // Quick mode: openapi-backend's own check of the document is written for OpenAPI 3.0 (it refuses
  // 3.1's type arrays and const); the document is linted as 3.1 by Redocly (tests/unit/openapi-lint).
  // Validators are then compiled on first use.
  quick: true,
  // openapi-backend builds draft-07 ajv instances; a 3.1 document's schemas are JSON Schema 2020-12.
  // It asks for a fresh instance for every operation's validators; one per set of options serves them
  // all (the schemas it compiles carry no $id), so the 2020-12 meta-schema, against which each schema
  // is checked as it compiles, is compiled once per set rather than once per operation. That was 8 of
  // the 13 CPU-seconds this file spent in ajv; the file alone, its stack included: 147 CPU-s before, 134 after.
  customizeAjv: (_draft07, options) => {
    const key = JSON.stringify(options);
    let ajv = ajvs.get(key);
    if (!ajv) {
      ajv = new Ajv2020({ ...options, strict: false, allErrors: true });
      addFormats(ajv);
      ajvs.set(key, ajv);
    }
    return ajv;
  },
});

type Json = any;
type Token = { kind: 'bearer' | 'key' | 'none'; value?: string };

interface Case {
  label: string;
  path: string;
  query: Record<string, string>;
  /** A JSON value, or a raw string sent as is (malformed JSON). */
  body?: { json: unknown } | { raw: string };
  /** Another Content-Type than application/json: the service's rule (415), which the validator does not judge. */
  contentType?: string;
}

/** Values the generic generator cannot guess from a schema (patterns), by property name. */
const SAMPLES: Record<string, string> = {
  username: `contract_${tag}`,
  email: `contract-${tag}@example.com`,
  password: 'correct-horse-battery',
  currentPassword: 'correct-horse-battery',
  newPassword: 'correct-horse-battery-2',
  // A model no other test prices or deploys: a valid price upsert here touches nothing they read.
  modelId: `contract.${tag}-v1:0`,
  endpointName: `contract-${tag}`,
  instanceType: 'ml.g5.xlarge',
  modelPackageArn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/contract/1',
  executionRoleArn: 'arn:aws:iam::123456789012:role/contract',
  region: 'us-east-1',
  message: 'hello',
  content: 'hello',
  role: 'user',
  name: 'contract',
  title: 'contract',
};

/** The smallest value the schema accepts, as far as a generic generator can tell (examples first). */
function sample(schema: Json, name = ''): unknown {
  if (!schema || typeof schema !== 'object') return 'x';
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return name === 'role' && schema.enum.includes('user') ? 'user' : schema.enum[0];
  const branch = schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (branch) {
    // The first alternative, merged into the schema around it (a branch may only add `required`).
    const { oneOf: _oneOf, anyOf: _anyOf, ...rest } = schema;
    if (!rest.type && !rest.properties) return sample(branch, name);
    return sample(
      {
        ...rest,
        ...branch,
        properties: { ...rest.properties, ...branch.properties },
        required: [...(rest.required ?? []), ...(branch.required ?? [])],
      },
      name,
    );
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s: Json) => sample(s, name)));
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'string': {
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'uri') return 'https://example.com/';
      const known = SAMPLES[name];
      if (known !== undefined && (!schema.pattern || new RegExp(schema.pattern, 'u').test(known))) return known;
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    }
    case 'integer':
    case 'number':
      return schema.default ?? schema.minimum ?? 1;
    case 'boolean':
      // dryRun true everywhere: a valid request plans or checks, it never provisions.
      return name === 'dryRun' ? true : (schema.default ?? false);
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 0) }, () => sample(schema.items));
    case 'object':
    case undefined: {
      if (type === undefined && !schema.properties) return 'x';
      const props = (schema.properties ?? {}) as Record<string, Json>;
      const out: Record<string, unknown> = {};
      for (const key of (schema.required ?? []) as string[]) out[key] = sample(props[key], key);
      for (const key of Object.keys(props)) {
        if (Object.keys(out).length >= (schema.minProperties ?? 0)) break;
        out[key] ??= sample(props[key], key);
      }
      if ('dryRun' in props) out.dryRun = true;
      return out;
    }
    default:
      return 'x';
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** A value of another JSON type than the schema's (the validator judges whether it is really wrong). */
function wrongType(schema: Json): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  return type === 'object' || type === 'array' ? 'not-an-object' : { not: 'a scalar' };
}

/** The value of a path parameter: hosted model ids carry their slash percent-encoded (one segment). */
function pathValue(param: Json): string {
  const schema = param.schema ?? {};
  const value = param.example ?? (schema.format === 'uuid' ? randomUUID() : sample(schema, param.name));
  return encodeURIComponent(String(value));
}

function pathOf(operation: Operation, values: Record<string, string>): string {
  return operation.path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '');
}

function parameters(operation: Operation, where: 'path' | 'query'): Json[] {
  return ((operation.parameters ?? []) as Json[]).filter((p) => p.in === where);
}

function bodyOf(operation: Operation): { schema?: Json; required: boolean } {
  const requestBody = operation.requestBody as Json;
  return { schema: requestBody?.content?.['application/json']?.schema, required: !!requestBody?.required };
}

/** The request the validator should accept, and its mutations. */
function casesOf(operation: Operation): { valid: Case; mutations: Case[] } {
  const pathValues = Object.fromEntries(parameters(operation, 'path').map((p) => [p.name, pathValue(p)]));
  const query = Object.fromEntries(
    parameters(operation, 'query')
      .filter((p) => p.required)
      .map((p) => [p.name, String(sample(p.schema, p.name))]),
  );
  const { schema, required } = bodyOf(operation);
  const body = schema ? (sample(schema) as Record<string, unknown>) : undefined;
  const path = pathOf(operation, pathValues);
  const valid: Case = {
    label: 'valid',
    path,
    query,
    ...(body !== undefined && (required || Object.keys(body).length) ? { body: { json: body } } : {}),
  };
  const cases: Case[] = [];
  const variant = (label: string, change: Partial<Case>) => cases.push({ ...valid, label, ...change });

  if (schema) {
    if (required) variant('no body', { body: undefined });
    variant('malformed JSON', { body: { raw: '{"a": 1,,' } });
    variant('a JSON array', { body: { json: [] } });
    if (valid.body) variant('the body as text/plain', { contentType: 'text/plain' });
    variant('an unknown field', { body: { json: { ...body, contractUnknownField: 1 } } });
    const seen = new Set<string>();
    for (const leaf of leaves(schema)) {
      const name = leaf.path.join('.');
      if (seen.has(name)) continue;
      seen.add(name);
      variant(`${name}: wrong JSON type`, { body: { json: withValue(body ?? {}, leaf.path, wrongType(leaf.schema)) } });
      if (leaf.required) variant(`${name}: missing`, { body: { json: withValue(body ?? {}, leaf.path, undefined, true) } });
    }
  }
  for (const p of parameters(operation, 'path')) {
    for (const [label, value] of [
      ['not a uuid', 'not-a-uuid'],
      ['characters outside the pattern', encodeURIComponent('bad value!*')],
      ['too long', 'a'.repeat(Math.max(400, (p.schema?.maxLength ?? 0) + 1))],
    ] as const) {
      variant(`path ${p.name}: ${label}`, { path: pathOf(operation, { ...pathValues, [p.name]: value }) });
    }
  }
  for (const p of parameters(operation, 'query')) {
    for (const [label, value] of [
      ['not a number', 'abc'],
      ['not in the enum', 'not-a-documented-value'],
      ['empty', ''],
      ['negative', '-1'],
    ] as const) {
      variant(`query ${p.name}: ${label}`, { query: { ...query, [p.name]: value } });
    }
  }
  return { valid, mutations: cases };
}

interface Answer {
  status: number;
  body: unknown;
  raw: string;
}

async function send(operation: Operation, c: Case, token: Token): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token.value) headers.authorization = `Bearer ${token.value}`;
  let body: string | undefined;
  if (c.body) {
    headers['content-type'] = c.contentType ?? 'application/json';
    body = 'raw' in c.body ? c.body.raw : JSON.stringify(c.body.json);
  }
  const search = new URLSearchParams(c.query).toString();
  // The service's own answer is judged, a redirect included (the browser steps of single sign-on), not where it leads.
  const res = await fetch(`${BASE()}${c.path}${search ? `?${search}` : ''}`, {
    method: operation.method.toUpperCase(),
    headers,
    body,
    redirect: 'manual',
  });
  const raw = await res.text();
  let parsed: unknown = raw;
  try {
    parsed = raw ? JSON.parse(raw) : undefined;
  } catch {
    // not JSON: the response check below names it
  }
  return { status: res.status, body: parsed, raw };
}

/** What openapi-backend says of the request, as the service receives it. */
function judgeRequest(operation: Operation, c: Case) {
  const headers: Record<string, string> = c.body ? { 'content-type': 'application/json' } : {};
  const body = !c.body ? undefined : 'raw' in c.body ? c.body.raw : c.body.json;
  return api.validateRequest({ method: operation.method, path: c.path, query: c.query, headers, body }, operation);
}

function errorShaped(operation: Operation, body: Json): boolean {
  // The /bedrock door answers as Bedrock does: the text in `message` (its name in x-amzn-errortype).
  if (operation.path.startsWith('/bedrock/')) return isPlainObject(body) && typeof body.message === 'string' && !('success' in body);
  if (operation.path.startsWith('/v1/'))
    return isPlainObject(body?.error) && typeof body.error.message === 'string' && typeof body.error.type === 'string';
  return body?.success === false && typeof (body.error ?? body.message) === 'string';
}

function documented(operation: Operation, status: number): boolean {
  const responses = (operation.responses ?? {}) as Record<string, unknown>;
  return [String(status), `${String(status)[0]}XX`, 'default'].some((key) => responses[key] !== undefined);
}

let bearer: string;
let apiKey: string;

async function login(): Promise<string> {
  const res = await fetch(`${BASE()}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: SAMPLES.username, password: `${tag}-Contract-Password` }),
  });
  const body = (await res.json()) as { token?: string };
  if (!body.token) throw new Error(`login failed: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

beforeAll(async () => {
  await api.init();
  // A super_admin of this file's own, so that what the cases do to their caller (failed password
  // checks, logout) touches no other suite's account.
  const adminLogin = await fetch(`${BASE()}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: process.env.E2E_ADMIN_USERNAME, password: process.env.E2E_ADMIN_PASSWORD }),
  });
  const { token: admin } = (await adminLogin.json()) as { token: string };
  const created = await fetch(`${BASE()}/api/admin/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
    body: JSON.stringify({
      username: SAMPLES.username,
      email: SAMPLES.email,
      name: 'Contract',
      password: `${tag}-Contract-Password`,
      role: 'super_admin',
    }),
  });
  if (created.status !== 201 && created.status !== 200)
    throw new Error(`creating the contract user failed: ${created.status} ${await created.text()}`);
  bearer = await login();
  const key = await fetch(`${BASE()}/api/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ name: `contract-${tag}` }),
  });
  const keyBody = (await key.json()) as { key?: string };
  apiKey = keyBody.key as string;
  if (!apiKey?.startsWith('mo_')) throw new Error(`creating an API key failed: ${key.status} ${JSON.stringify(keyBody)}`);
});

function tokenFor(operation: Operation, session: string): Token {
  const security = (operation.security ?? definition.security ?? []) as Json[];
  if (security.length === 0) return { kind: 'none' };
  return JSON.stringify(security).includes('apiKeyAuth') ? { kind: 'key', value: apiKey } : { kind: 'bearer', value: session };
}

const operations = (() => {
  return new OpenAPIRouter({ definition })
    .getOperations()
    .map((o) => [`${o.method.toUpperCase()} ${o.path} (${o.operationId})`, o.operationId as string] as const);
})();

/** What is wrong with a case's answer, and whether the validator accepted the request. */
interface Checked {
  accepted: boolean;
  problems: string[];
}

/** Sends a case and lists what is wrong with the answer; `accepted` says what the validator thought. */
async function check(operation: Operation, c: Case, token: Token): Promise<Checked> {
  const verdict = judgeRequest(operation, c);
  const answer = await send(operation, c, token);
  const where = `${c.label} (${operation.method.toUpperCase()} ${c.path}) answered ${answer.status}`;
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`${where}: a server error: ${answer.raw.slice(0, 300)}`);
  if (!documented(operation, answer.status)) problems.push(`${where}: a status the document does not list for the operation`);
  const response = api.validateResponse(answer.body, operation, answer.status);
  if (!response.valid)
    problems.push(`${where}: the body does not match the document: ${JSON.stringify(response.errors?.slice(0, 3))} ${answer.raw.slice(0, 300)}`);
  if (c.contentType) {
    if (answer.status !== 415) problems.push(`${where}, not 415`);
    else if (!errorShaped(operation, answer.body)) problems.push(`${where} without the error shape: ${answer.raw.slice(0, 300)}`);
  } else if (!verdict.valid) {
    if (answer.status < 400 || answer.status >= 500) {
      const first = verdict.errors?.[0];
      problems.push(`${where}, but the validator rejects the request (${first?.instancePath} ${first?.message})`);
    } else if (!errorShaped(operation, answer.body)) problems.push(`${where} without the error shape: ${answer.raw.slice(0, 300)}`);
  }
  return { accepted: verdict.valid && !c.contentType, problems };
}

describe('openapi-backend judges real traffic through the local stack, operation by operation', () => {
  test.each(operations)(
    '%s: documented answers only, and every request the validator rejects is a 4xx in the error shape',
    async (_name, operationId) => {
      const operation = api.getOperation(operationId) as Operation;
      const { valid, mutations } = casesOf(operation);
      // One request at a time: with two in flight, serverless-offline starts a second instance of the
      // function (a worker thread that loads its bundle, 0.1 to 0.2 CPU-s) for nearly every operation,
      // and none of the files after this one needs it (docs/testing.md).
      const results: Checked[] = [];
      for (const c of mutations) results.push(await check(operation, c, tokenFor(operation, bearer)));
      // The valid request last: it may end the session (logout), which is then renewed for the others.
      results.push(await check(operation, valid, tokenFor(operation, bearer)));
      if (tokenFor(operation, bearer).kind === 'bearer') {
        const still = await fetch(`${BASE()}/api/auth/validate`, { headers: { authorization: `Bearer ${bearer}` } });
        if (still.status === 401) bearer = await login();
      }
      expect(results.flatMap((r) => r.problems)).toEqual([]);
      // The generator must reach the operation: a schema it cannot satisfy needs an `example`.
      expect(results.filter((r) => r.accepted).length).toBeGreaterThan(0);
    },
  );
});
