/**
 * The API contract (docs/openapi.yaml) against itself, the document the API serves, the routes in
 * serverless.yml and the handlers' auth levels and request schemas. The e2e suite checks the other
 * direction: every response it receives is validated against the document (tests/e2e/contract.ts).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import type { TSchema } from '@sinclair/typebox';
import { operationsOf, pointerOf, resolve } from '../e2e/contract';
import { CreateUserBody, ListAuditQuery, ListUsersQuery, UpdateUserBody, UserPath } from '../../functions/admin/schemas';
import { DeployDedicatedBody, DeployHostedBody, DeployManagedBody } from '../../functions/deploy/schemas';
import { ControlBody, ListResourcesQuery, ResourceAccessBody, ResourcePath, UpdateResourceBody } from '../../functions/resources/schemas';
import { AdoptOrphanBody, DeleteOrphanQuery, ListOrphansQuery, OrphanPath } from '../../functions/orphans/schemas';
import { LegacyChatBody, LegacyQuery, ThreadChatBody, ThreadQuery } from '../../functions/chat/schemas';
import { ConversationMessagesQuery, ConversationPath, CreateConversationBody, ListConversationsQuery } from '../../functions/conversations/schemas';
import { DedicatedModelsQuery, HostedModelsQuery, ModelInfoPath } from '../../functions/models/schemas';
import { RefreshPricingBody, UpsertPricingBody } from '../../functions/pricing/schemas';
import { BreakdownQuery, UsageQuery } from '../../functions/usage/schemas';
import { CreateKeyBody, KeyPath, ListKeysQuery, UpdateKeyBody } from '../../functions/keys/schemas';
import {
  ChatCompletionBody,
  EmbeddingsBody,
  MessagesBody,
  MessagesCountTokensBody,
  ResponsePath,
  ResponsesBody,
} from '../../functions/gateway/schemas';
import { ConverseBody, ConversePath, CountTokensBody, InvokeBody } from '../../functions/bedrock/schemas';
import {
  AddMemberBody,
  CreateTeamBody,
  InvitationPath,
  ListInvitationsQuery,
  ListMembersQuery,
  ListTeamsQuery,
  MemberPath,
  TeamPath,
  UpdateMemberBody,
  UpdateTeamBody,
} from '../../functions/teams/schemas';
import { OidcCallbackQuery, OidcLoginQuery } from '../../functions/auth/schemas';
import { CreateRouteBody, ListRoutesQuery, RoutePath, UpdateRouteBody } from '../../functions/routes/schemas';
import { ChannelPath, CreateChannelBody, ListDeliveriesQuery } from '../../functions/alerts/schemas';

type Json = any;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const yamlText = readFileSync(join(ROOT, 'docs', 'openapi.yaml'), 'utf8');
const doc: Json = parse(yamlText, { uniqueKeys: true });
const operations = operationsOf(doc);
const DOC_ID = 'https://model-ops.local/openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every node of the document with its JSON pointer. */
function* walk(node: Json, pointer = ''): Generator<[Json, string]> {
  yield [node, pointer];
  if (node && typeof node === 'object') {
    for (const [key, child] of Object.entries(node)) yield* walk(child, `${pointer}${pointerOf(key)}`);
  }
}

const extensionsOk = (keys: string[], allowed: string[]) => keys.filter((k) => !allowed.includes(k) && !k.startsWith('x-'));

// ---------------------------------------------------------------------------------------------
// The routes of serverless.yml and their handlers
// ---------------------------------------------------------------------------------------------

interface Route {
  functionName: string;
  key: string;
  handlerFile: string;
}

function serverlessRoutes(): { routes: Route[]; defaultRoute: boolean } {
  const main = readFileSync(join(ROOT, 'serverless.yml'), 'utf8');
  const files = [...main.matchAll(/\$\{file\((functions\/[^)]+\/functions\.yml)\)\}/g)].map((m) => m[1] as string);
  expect(files.length).toBeGreaterThan(0);
  const routes: Route[] = [];
  let defaultRoute = false;
  for (const file of files) {
    const functions: Record<string, Json> = parse(readFileSync(join(ROOT, file), 'utf8')) ?? {};
    for (const [functionName, fn] of Object.entries(functions)) {
      const handlerFile = `${String(fn.handler).replace(/\.[^.]+$/, '')}.ts`;
      for (const event of fn.events ?? []) {
        const api = event.httpApi;
        if (api === undefined) continue;
        if (api === '*' || api?.path === '*') {
          defaultRoute = true;
          continue;
        }
        const path = String(api.path).replace(/\{([^}+]+)\+\}/g, '{$1}');
        routes.push({ functionName, key: `${String(api.method).toUpperCase()} ${path}`, handlerFile });
      }
    }
  }
  return { routes, defaultRoute };
}

const ROLES_FOR_AUTH: Record<string, string[]> = {
  none: [],
  user: ['user', 'admin', 'super_admin'],
  admin: ['admin', 'super_admin'],
  super_admin: ['super_admin'],
};

// ---------------------------------------------------------------------------------------------
// (a) a valid OpenAPI 3.1 document
// ---------------------------------------------------------------------------------------------

describe('docs/openapi.yaml is a valid OpenAPI 3.1 document', () => {
  test('declares OpenAPI 3.1, version 1.0.0, a server and only the fields OpenAPI defines at the top level', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '1.0.0' });
    expect(doc.servers?.[0]?.url).toEqual(expect.any(String));
    expect(
      extensionsOk(Object.keys(doc), [
        'openapi',
        'info',
        'jsonSchemaDialect',
        'servers',
        'paths',
        'webhooks',
        'components',
        'security',
        'tags',
        'externalDocs',
      ]),
    ).toEqual([]);
    expect(
      extensionsOk(Object.keys(doc.components), [
        'schemas',
        'responses',
        'parameters',
        'examples',
        'requestBodies',
        'headers',
        'securitySchemes',
        'links',
        'callbacks',
        'pathItems',
      ]),
    ).toEqual([]);
    for (const [kind, entries] of Object.entries<Json>(doc.components)) {
      for (const name of Object.keys(entries)) expect(`${kind}.${name}`).toMatch(/^\w+\.[a-zA-Z0-9._-]+$/);
    }
  });

  test('lays the paths out for versioning: all under /api, none with a version segment (v1 is implicit), but OpenAI’s own /v1 paths of the gateway', () => {
    const paths = Object.keys(doc.paths).filter(
      (p) =>
        ![
          '/v1/models',
          '/v1/chat/completions',
          '/v1/embeddings',
          '/v1/responses',
          '/v1/responses/{id}',
          '/v1/messages',
          '/v1/messages/count_tokens',
        ].includes(p) &&
        // The Bedrock-compatible door: bedrock-runtime's own paths.
        !p.startsWith('/bedrock/model/{modelId}/'),
    );
    expect(paths.filter((p) => !p.startsWith('/api/'))).toEqual([]);
    expect(paths.filter((p) => /\/v\d+(\/|$)/.test(p))).toEqual([]);
    expect(doc.info.description).toMatch(/\/api\/v2/);
  });

  test('resolves every $ref', () => {
    const broken: string[] = [];
    for (const [node, pointer] of walk(doc)) {
      if (node && typeof node === 'object' && typeof node.$ref === 'string') {
        try {
          resolve(doc, node, pointer);
        } catch (err) {
          broken.push(`${pointer}: ${(err as Error).message}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test('gives every operation a unique operationId, only OpenAPI fields, and responses with descriptions', () => {
    const problems: string[] = [];
    const ids = new Set<string>();
    for (const [template, item] of Object.entries<Json>(doc.paths)) {
      problems.push(
        ...extensionsOk(Object.keys(item), ['$ref', 'summary', 'description', 'servers', 'parameters', ...HTTP_METHODS]).map(
          (k) => `${template}: ${k}`,
        ),
      );
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        const name = `${method.toUpperCase()} ${template}`;
        problems.push(
          ...extensionsOk(Object.keys(op), [
            'tags',
            'summary',
            'description',
            'externalDocs',
            'operationId',
            'parameters',
            'requestBody',
            'responses',
            'callbacks',
            'deprecated',
            'security',
            'servers',
          ]).map((k) => `${name}: ${k}`),
        );
        if (!op.operationId) problems.push(`${name}: no operationId`);
        if (ids.has(op.operationId)) problems.push(`${name}: duplicate operationId ${op.operationId}`);
        ids.add(op.operationId);
        const responses = Object.entries<Json>(op.responses ?? {});
        if (responses.length === 0) problems.push(`${name}: no responses`);
        // A success, or (the browser steps of single sign-on) a redirect.
        if (!responses.some(([code]) => /^[23]\d\d$/.test(code))) problems.push(`${name}: no success response`);
        for (const [code, raw] of responses) {
          if (!/^([1-5]XX|[1-5]\d\d|default)$/.test(code)) problems.push(`${name}: response key ${code}`);
          const { node: response, pointer } = resolve(doc, raw, '');
          if (typeof response.description !== 'string') problems.push(`${name} ${code}: no description (${pointer})`);
          problems.push(...extensionsOk(Object.keys(response), ['description', 'headers', 'content', 'links']).map((k) => `${name} ${code}: ${k}`));
          for (const [type, media] of Object.entries<Json>(response.content ?? {})) {
            if (!media.schema) problems.push(`${name} ${code} ${type}: no schema`);
          }
        }
        if (op.requestBody) {
          const body = resolve(doc, op.requestBody, '').node;
          if (!body.content?.['application/json']?.schema) problems.push(`${name}: request body without an application/json schema`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  test('declares every path parameter of every template, required, and no parameter twice', () => {
    const problems: string[] = [];
    for (const { method, template, pointer, operation } of operations) {
      const item = doc.paths[template];
      const params = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p: Json) => resolve(doc, p, pointer).node);
      const name = `${method} ${template}`;
      const seen = new Set<string>();
      for (const p of params) {
        if (!['query', 'header', 'path', 'cookie'].includes(p.in)) problems.push(`${name}: parameter ${p.name} in ${p.in}`);
        if (!p.schema && !p.content) problems.push(`${name}: parameter ${p.name} has no schema`);
        if (seen.has(`${p.in}:${p.name}`)) problems.push(`${name}: parameter ${p.name} twice`);
        seen.add(`${p.in}:${p.name}`);
        if (p.in === 'path' && p.required !== true) problems.push(`${name}: path parameter ${p.name} is not required: true`);
      }
      const inTemplate = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string).sort();
      const declared = params
        .filter((p: Json) => p.in === 'path')
        .map((p: Json) => p.name as string)
        .sort();
      if (JSON.stringify(inTemplate) !== JSON.stringify(declared))
        problems.push(`${name}: template parameters ${inTemplate} but declared ${declared}`);
    }
    expect(problems).toEqual([]);
  });

  test('defines the bearer scheme and uses only defined schemes', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    const unknown: string[] = [];
    const requirements = [...(doc.security ?? []), ...operations.flatMap((o) => o.operation.security ?? [])];
    for (const requirement of requirements) {
      for (const scheme of Object.keys(requirement)) if (!doc.components.securitySchemes[scheme]) unknown.push(scheme);
    }
    expect(unknown).toEqual([]);
  });

  test('compiles every schema with ajv (JSON Schema 2020-12, strict mode)', () => {
    // strictRequired is ajv's per-object check, which a `then: { required }` referring to its parent's
    // properties fails; the same check is done document-wide by the test below instead.
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true, allErrors: true });
    addFormats(ajv);
    // OpenAPI's own schema keywords (the OAS base vocabulary), and the document's top-level fields,
    // which ajv meets as keywords when it resolves a pointer from the document's root.
    ajv.addVocabulary(['discriminator', 'xml', 'externalDocs', 'example']);
    ajv.addVocabulary(Object.keys(doc).filter((k) => !['externalDocs'].includes(k)));
    ajv.addSchema(doc, DOC_ID);
    const locations: string[] = [];
    for (const [node, pointer] of walk(doc)) {
      if (pointer.startsWith('/components/schemas/') && pointer.split('/').length === 4) locations.push(pointer);
      else if (/\/(schema)$/.test(pointer) && node && typeof node === 'object' && !pointer.startsWith('/components/schemas/'))
        locations.push(pointer);
    }
    expect(locations.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const pointer of locations) {
      const fragment = pointer
        .split('/')
        .map((s) => encodeURIComponent(s))
        .join('/');
      try {
        ajv.compile({ $ref: `${DOC_ID}#${fragment}` });
      } catch (err) {
        failures.push(`${pointer}: ${(err as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test('lists as required only properties an object schema defines', () => {
    const undefinedRequired: string[] = [];
    for (const [node, pointer] of walk(doc)) {
      if (!node || typeof node !== 'object' || !node.properties || !Array.isArray(node.required)) continue;
      // A conditional's branch is checked with the schema that holds it (below).
      if (/\/(then|else)$/.test(pointer)) continue;
      for (const name of node.required) {
        if (!(name in node.properties)) undefinedRequired.push(`${pointer}: ${name}`);
      }
      // A conditional's `then: { required }` names properties of the schema that holds it.
      const then = node.then;
      if (then && Array.isArray(then.required)) {
        for (const name of then.required)
          if (!(name in node.properties) && !(name in (then.properties ?? {}))) undefinedRequired.push(`${pointer}/then: ${name}`);
      }
    }
    expect(undefinedRequired).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// (b) the document served is the YAML
// ---------------------------------------------------------------------------------------------

describe('GET /api/openapi.json', () => {
  test('serves docs/openapi.yaml, without a token', async () => {
    const { handler } = await import('../../functions/system/openapi');
    const { call } = await import('../helpers/invoke');
    const res = await call(handler as never, { method: 'GET', path: '/api/openapi.json' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(doc);
  });
});

// ---------------------------------------------------------------------------------------------
// (c) routes, (d) roles
// ---------------------------------------------------------------------------------------------

describe('the document and serverless.yml', () => {
  const { routes, defaultRoute } = serverlessRoutes();
  const documented = new Map(operations.map((o) => [`${o.method} ${o.template}`, o]));

  test('list the same routes, both ways', () => {
    const routed = new Set(routes.map((r) => r.key));
    const missingFromDocument = [...routed].filter((k) => !documented.has(k)).sort();
    const missingFromServerless = [...documented.keys()].filter((k) => !routed.has(k)).sort();
    expect({ missingFromDocument, missingFromServerless }).toEqual({ missingFromDocument: [], missingFromServerless: [] });
  });

  test('describe the $default route (unknown routes answer 404, in OpenAI’s shape under /v1) as x-unmatched-route', () => {
    expect(defaultRoute).toBe(true);
    const { node } = resolve(doc, doc['x-unmatched-route'], '');
    expect(node.content['application/json'].schema).toEqual({
      oneOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/OpenAiErrorBody' }],
    });
  });

  test('name each operation after its function', () => {
    const mismatched = routes
      .filter((r) => documented.get(r.key) && documented.get(r.key)?.operationId !== r.functionName)
      .map((r) => `${r.key}: operationId ${documented.get(r.key)?.operationId}, function ${r.functionName}`);
    expect(mismatched).toEqual([]);
  });

  test("give every operation x-roles that match its handler's auth level, with security, 401 and 403 to match", () => {
    const problems: string[] = [];
    for (const route of routes) {
      const op = documented.get(route.key)?.operation;
      if (!op) continue;
      const source = readFileSync(join(ROOT, route.handlerFile), 'utf8');
      // The gateway's /v1 endpoints (lib/http/key-endpoint.ts) take an API key, not a role.
      if (/\bkeyEndpoint\(/.test(source)) {
        if (JSON.stringify(op.security) !== '[{"apiKeyAuth":[]}]') problems.push(`${route.key}: key endpoint without apiKeyAuth security`);
        // The /bedrock door answers a missing or unknown key as Bedrock does: 403 AccessDeniedException.
        const refusal = route.key.includes(' /bedrock/') ? '403' : '401';
        if (!Object.keys(op.responses).includes(refusal)) problems.push(`${route.key}: no ${refusal}`);
        continue;
      }
      // publicEndpoint (lib/http/public-endpoint.ts) is auth 'none' by construction.
      const declared = [...source.matchAll(/\bauth:\s*'(none|user|admin|super_admin)'/g)].map((m) => m[1] as string);
      if (/\bpublicEndpoint\(/.test(source)) declared.push('none');
      const levels = [...new Set(declared)];
      if (levels.length !== 1) {
        problems.push(`${route.key}: ${route.handlerFile} declares auth ${JSON.stringify(levels)}`);
        continue;
      }
      const expected = ROLES_FOR_AUTH[levels[0] as string] as string[];
      const roles = op['x-roles'];
      if (!Array.isArray(roles)) {
        problems.push(`${route.key}: no x-roles`);
        continue;
      }
      if ([...roles].sort().join() !== [...expected].sort().join())
        problems.push(`${route.key}: x-roles ${JSON.stringify(roles)}, handler auth '${levels[0]}'`);
      const security = op.security ?? doc.security;
      const codes = Object.keys(op.responses);
      if (expected.length === 0) {
        if (JSON.stringify(security) !== '[]') problems.push(`${route.key}: public but security is ${JSON.stringify(security)}`);
        if (!/public/i.test(op.description ?? '')) problems.push(`${route.key}: description does not say it is public`);
      } else {
        if (!JSON.stringify(security).includes('bearerAuth')) problems.push(`${route.key}: no bearerAuth security`);
        if (!codes.includes('401')) problems.push(`${route.key}: no 401`);
        if (!(op.description ?? '').includes(`Roles: ${expected.join(', ')}`))
          problems.push(`${route.key}: description does not name the roles (${expected.join(', ')})`);
        if (expected.length < 3 && !codes.includes('403')) problems.push(`${route.key}: no 403`);
      }
    }
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// (e) request schemas mirror the handlers' TypeBox schemas
// ---------------------------------------------------------------------------------------------

/** The constraints that decide what a request may carry, in one comparable form. */
function normalise(schema: Json, deref: (s: Json) => Json): Json {
  const s = deref(schema);
  const out: Json = {};
  const union = s.anyOf ?? s.oneOf;
  const branches = union?.map(deref);
  if (branches?.every((l: Json) => l.const !== undefined)) {
    // A union of literals is an enum, whichever way it is written.
    out.type = typeof branches[0].const;
    out.enum = branches.map((l: Json) => l.const).sort();
  } else if (s.enum) {
    out.type = s.type;
    out.enum = [...s.enum].sort();
  } else if (s.const !== undefined) {
    out.type = typeof s.const;
    out.const = s.const;
  } else if (s.type !== undefined) {
    out.type = s.type;
  }
  // Any other union (an amount that is 0 or in a range, a choice of required fields, the branches of
  // a discriminated union) is compared branch by branch.
  if (branches && out.enum === undefined) out[s.oneOf ? 'oneOf' : 'anyOf'] = branches.map((b: Json) => normalise(b, deref));
  if (s.discriminator) out.discriminator = s.discriminator.propertyName;
  for (const k of ['pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'minItems', 'maxItems', 'minProperties']) {
    if (s[k] !== undefined) out[k] = s[k];
  }
  if (s.type === 'object' && !s.oneOf) {
    out.additionalProperties = s.additionalProperties ?? true;
    out.required = [...(s.required ?? [])].sort();
    out.properties = Object.fromEntries(Object.entries<Json>(s.properties ?? {}).map(([k, v]) => [k, normalise(v, deref)]));
  } else if (Array.isArray(s.required)) {
    out.required = [...s.required].sort();
  }
  if (s.items) out.items = normalise(s.items, deref);
  return out;
}

const derefDoc = (s: Json) => resolve(doc, s, '').node;
const plain = (s: TSchema) => JSON.parse(JSON.stringify(s));
const asIs = (s: Json) => s;

const BODIES: Record<string, TSchema> = {
  converse: ConverseBody,
  converseStream: ConverseBody,
  invoke: InvokeBody,
  invokeStream: InvokeBody,
  countTokens: CountTokensBody,
  messagesCountTokens: MessagesCountTokensBody,
  createUser: CreateUserBody,
  updateUser: UpdateUserBody,
  deployManaged: DeployManagedBody,
  deployDedicated: DeployDedicatedBody,
  deployHosted: DeployHostedBody,
  resourceControl: ControlBody,
  updateResource: UpdateResourceBody,
  setResourceAccess: ResourceAccessBody,
  adoptOrphan: AdoptOrphanBody,
  chatThreadPost: ThreadChatBody,
  chatLegacyPost: LegacyChatBody,
  createConversation: CreateConversationBody,
  upsertPricing: UpsertPricingBody,
  updatePricing: RefreshPricingBody,
  createKey: CreateKeyBody,
  updateKey: UpdateKeyBody,
  createAlertChannel: CreateChannelBody,
  chatCompletions: ChatCompletionBody,
  embeddings: EmbeddingsBody,
  responses: ResponsesBody,
  messages: MessagesBody,
  createTeam: CreateTeamBody,
  updateTeam: UpdateTeamBody,
  addTeamMember: AddMemberBody,
  updateTeamMember: UpdateMemberBody,
  inviteToTeam: AddMemberBody,
  createRoute: CreateRouteBody,
  updateRoute: UpdateRouteBody,
};

const PARAMETERS: Record<string, { query?: TSchema; path?: TSchema }> = {
  listUsers: { query: ListUsersQuery },
  listAudit: { query: ListAuditQuery },
  getUser: { path: UserPath },
  updateUser: { path: UserPath },
  clearLoginFailures: { path: UserPath },
  listDedicatedModels: { query: DedicatedModelsQuery },
  listHostedModels: { query: HostedModelsQuery },
  managedModelInfo: { path: ModelInfoPath },
  hostedModelInfo: { path: ModelInfoPath },
  listResources: { query: ListResourcesQuery },
  resourceStatus: { path: ResourcePath },
  resourceControl: { path: ResourcePath },
  updateResource: { path: ResourcePath },
  setResourceAccess: { path: ResourcePath },
  listOrphans: { query: ListOrphansQuery },
  adoptOrphan: { path: OrphanPath },
  deleteOrphan: { path: OrphanPath, query: DeleteOrphanQuery },
  chatThreadGet: { query: ThreadQuery },
  chatLegacyGet: { query: LegacyQuery },
  listConversations: { query: ListConversationsQuery },
  listConversationMessages: { path: ConversationPath, query: ConversationMessagesQuery },
  currentUsage: { query: UsageQuery },
  usageBreakdown: { query: BreakdownQuery },
  listKeys: { query: ListKeysQuery },
  updateKey: { path: KeyPath },
  deleteAlertChannel: { path: ChannelPath },
  testAlertChannel: { path: ChannelPath },
  listAlertDeliveries: { query: ListDeliveriesQuery },
  revokeKey: { path: KeyPath },
  listTeams: { query: ListTeamsQuery },
  listRoutes: { query: ListRoutesQuery },
  getRoute: { path: RoutePath },
  updateRoute: { path: RoutePath },
  deleteRoute: { path: RoutePath },
  getTeam: { path: TeamPath },
  updateTeam: { path: TeamPath },
  deleteTeam: { path: TeamPath },
  listTeamMembers: { path: TeamPath, query: ListMembersQuery },
  addTeamMember: { path: TeamPath },
  updateTeamMember: { path: MemberPath },
  removeTeamMember: { path: MemberPath },
  listMyInvitations: { query: ListInvitationsQuery },
  listTeamInvitations: { path: TeamPath, query: ListInvitationsQuery },
  inviteToTeam: { path: TeamPath },
  revokeTeamInvitation: { path: InvitationPath },
  acceptTeamInvitation: { path: InvitationPath },
  declineTeamInvitation: { path: InvitationPath },
  oidcLogin: { query: OidcLoginQuery },
  oidcCallback: { query: OidcCallbackQuery },
  getResponse: { path: ResponsePath },
  deleteResponse: { path: ResponsePath },
  converse: { path: ConversePath },
  converseStream: { path: ConversePath },
  invoke: { path: ConversePath },
  invokeStream: { path: ConversePath },
  countTokens: { path: ConversePath },
};

/**
 * Where the document deliberately shows a parameter differently from its TypeBox schema. `max` is a
 * string with a pattern in TypeBox only so that "2.5" is refused rather than converted to 2; what
 * it accepts is exactly an integer from 1 to 50, which is how the document shows it.
 */
const PARAMETER_EXCEPTIONS = new Set(['listDedicatedModels query max']);

describe('request schemas in the document mirror the handlers (TypeBox)', () => {
  const byId = new Map(operations.map((o) => [o.operationId, o]));

  test('every request body has the same fields, required fields and constraints', () => {
    const withBody = operations
      .filter((o) => o.operation.requestBody)
      .map((o) => o.operationId)
      .sort();
    // Login's schema is private to its handler; every other body is mirrored below.
    expect(withBody).toEqual([...Object.keys(BODIES), 'login'].sort());
    for (const [operationId, typebox] of Object.entries(BODIES)) {
      const op = byId.get(operationId)?.operation;
      const documented = derefDoc(op.requestBody).content['application/json'].schema;
      expect({ operationId, schema: normalise(documented, derefDoc) }).toEqual({ operationId, schema: normalise(plain(typebox), asIs) });
    }
  });

  test('every query and path parameter has the same name, presence and constraints', () => {
    const problems: string[] = [];
    for (const o of operations) {
      const expected = PARAMETERS[o.operationId] ?? {};
      const item = doc.paths[o.template];
      const params = [...(item.parameters ?? []), ...(o.operation.parameters ?? [])].map(derefDoc);
      for (const location of ['query', 'path'] as const) {
        const typebox = expected[location] ? plain(expected[location]) : { properties: {}, required: [] };
        const documented = params.filter((p: Json) => p.in === location);
        const names = documented.map((p: Json) => p.name).sort();
        const schemaNames = Object.keys(typebox.properties).sort();
        if (JSON.stringify(names) !== JSON.stringify(schemaNames)) {
          problems.push(`${o.operationId} ${location}: document ${JSON.stringify(names)}, handler ${JSON.stringify(schemaNames)}`);
          continue;
        }
        for (const p of documented) {
          const required = (typebox.required ?? []).includes(p.name);
          if ((p.required === true) !== required)
            problems.push(`${o.operationId} ${location} ${p.name}: required ${p.required}, handler ${required}`);
          if (PARAMETER_EXCEPTIONS.has(`${o.operationId} ${location} ${p.name}`)) continue;
          const a = JSON.stringify(normalise(p.schema, derefDoc));
          const b = JSON.stringify(normalise(typebox.properties[p.name], asIs));
          if (a !== b) problems.push(`${o.operationId} ${location} ${p.name}: document ${a}, handler ${b}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  // The request checks fill these defaults in (lib/http/schemas.ts WithDefault), so handlers carry none.
  test('every default the document states, for a parameter or a body field, is the one the handler schema declares, and the schemas declare no other', () => {
    const defaultsOf = (schema: Json, deref: (s: Json) => Json, path: string, out: Record<string, unknown> = {}) => {
      const s = deref(schema);
      if (s.default !== undefined) out[path] = s.default;
      for (const [key, property] of Object.entries<Json>(s.properties ?? {})) defaultsOf(property, deref, `${path}.${key}`, out);
      if (s.items) defaultsOf(s.items, deref, `${path}[]`, out);
      return out;
    };
    const documented: Record<string, unknown> = {};
    const declared: Record<string, unknown> = {};
    for (const o of operations) {
      const params = [...(doc.paths[o.template].parameters ?? []), ...(o.operation.parameters ?? [])].map(derefDoc);
      for (const p of params) {
        const key = `${o.operationId} ${p.in} ${p.name}`;
        const value = derefDoc(p.schema).default;
        // `max` is a string in its schema (PARAMETER_EXCEPTIONS), so its default is the same number as text.
        if (value !== undefined) documented[key] = PARAMETER_EXCEPTIONS.has(key) ? String(value) : value;
      }
      for (const location of ['query', 'path'] as const) {
        const schema = PARAMETERS[o.operationId]?.[location];
        for (const [name, property] of Object.entries<Json>(schema ? plain(schema).properties : {})) {
          if (property.default !== undefined) declared[`${o.operationId} ${location} ${name}`] = property.default;
        }
      }
      if (o.operation.requestBody)
        defaultsOf(derefDoc(o.operation.requestBody).content['application/json'].schema, derefDoc, `${o.operationId} body`, documented);
      if (BODIES[o.operationId]) defaultsOf(plain(BODIES[o.operationId] as TSchema), asIs, `${o.operationId} body`, declared);
    }
    expect(Object.keys(documented).length).toBeGreaterThan(10);
    expect(declared).toEqual(documented);
  });
});
