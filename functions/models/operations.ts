// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/models/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import {
  DedicatedModelEntry,
  HostedModelEntry,
  ManagedModelEntry,
  ModelDetailResponse,
  PlatformDescription,
  PlatformSyncReport,
} from './response-schemas';
import { Timestamp } from '../system/response-schemas';
import { Parameters, Ref, errors, type Operations } from '../../lib/http/contract';
import { DedicatedModelsQuery, HostedModelsQuery, ModelInfoPath } from './schemas';

export const operations: Operations = {
  /** GET /api/platforms */
  listPlatforms: {
    tags: ['models'],
    summary: 'The model platforms and what each is',
    description:
      "Roles: user, admin, super_admin. Each platform's label and description, how it bills (and so which price entries it takes), its resources' lifecycle, and whether its prices have service tiers: what a client needs to show the platforms without knowing them by name. Static for a deployment: it reads no table.",
    responses: {
      '200': {
        description: 'The platforms, in a stable order.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), platforms: Type.Array(Ref(PlatformDescription)) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** GET /api/models/managed */
  listManagedModels: {
    tags: ['models'],
    summary: "The managed platform's foundation models",
    description:
      'Roles: user, admin, super_admin. Served from a cached copy while it is fresh; the X-Catalogue-* headers say where the answer came from.',
    responses: {
      '200': {
        description: 'The models.',
        headers: {
          'X-Catalogue-Source': { $ref: '#/components/headers/CatalogueSource' },
          'X-Catalogue-Fetched-At': { $ref: '#/components/headers/CatalogueFetchedAt' },
        },
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), region: Type.String(), models: Type.Array(Ref(ManagedModelEntry)) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 502, 503),
    },
  },

  /** GET /api/models/dedicated */
  listDedicatedModels: {
    tags: ['models'],
    summary: 'Model packages for dedicated deploys, newest first',
    description: "Roles: user, admin, super_admin. The public model hub, the account's own model packages, or both.",
    parameters: new Parameters({ query: DedicatedModelsQuery }, [
      { name: 'search', in: 'query', description: 'Text to find in model names (case-insensitive), at most 100 characters, no control characters.' },
      {
        name: 'max',
        in: 'query',
        description: 'Maximum results, 1 to 50; default 20.',
        schema: { type: 'integer', minimum: 1, maximum: 50, default: 20 },
      },
      { name: 'source', in: 'query', description: "`public` (the public model hub, default), `account` (the account's model packages) or `all`." },
    ]),
    responses: {
      '200': {
        description: 'The model packages.',
        headers: {
          'X-Catalogue-Source': { $ref: '#/components/headers/CatalogueSource' },
          'X-Catalogue-Fetched-At': { $ref: '#/components/headers/CatalogueFetchedAt' },
        },
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                region: Type.String(),
                source: Type.Unsafe<'public' | 'account' | 'all'>({
                  description: 'Echoes the selected source.',
                  type: 'string',
                  enum: ['public', 'account', 'all'],
                }),
                models: Type.Array(Ref(DedicatedModelEntry), { maxItems: 50 }),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 502, 503),
    },
  },

  /** GET /api/models/hosted */
  listHostedModels: {
    tags: ['models'],
    summary: "The hosted platform's models",
    description: 'Roles: user, admin, super_admin. `debug=1` asks the platform directly and adds its raw answer as `raw`.',
    parameters: new Parameters({ query: HostedModelsQuery }, [
      { name: 'debug', in: 'query', description: '1 or true adds the raw upstream response; 0 or false (default) does not.' },
    ]),
    responses: {
      '200': {
        description: 'The models.',
        headers: {
          'X-Catalogue-Source': { $ref: '#/components/headers/CatalogueSource' },
          'X-Catalogue-Fetched-At': { $ref: '#/components/headers/CatalogueFetchedAt' },
        },
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                provider: Type.Unsafe<'hosted'>({ const: 'hosted' }),
                models: Type.Array(Ref(HostedModelEntry)),
                raw: Type.Optional(Type.Unsafe({ description: 'Only with debug=1; the upstream response as received.' })),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 502, 503),
    },
  },

  /** GET /api/managed/model-info/{modelId} */
  managedModelInfo: {
    tags: ['models'],
    summary: 'Detail about one managed model',
    description: 'Roles: user, admin, super_admin.',
    parameters: new Parameters({ path: ModelInfoPath }, [
      {
        name: 'modelId',
        in: 'path',
        description: 'A managed model id such as anthropic.claude-3-haiku-20240307-v1:0.',
        example: 'anthropic.claude-3-haiku-20240307-v1:0',
      },
    ]),
    responses: {
      '200': {
        description: "The model, its system prompt and this service's usage of it.",
        content: { 'application/json': { schema: Ref(ModelDetailResponse) } },
      },
      ...errors('api', 400, 401, 404, 413, 415, 500, 502, 503),
    },
  },

  /** GET /api/hosted/model-info/{modelId} */
  hostedModelInfo: {
    tags: ['models'],
    summary: 'Detail about one hosted model',
    description: `Roles: user, admin, super_admin. Hosted model ids contain a slash
(\`meta/llama-3.1-8b-instruct\`). The form for generated clients and other standard tooling
is the id percent-encoded as one path segment, as they encode any path parameter:
\`/api/hosted/model-info/meta%2Fllama-3.1-8b-instruct\`. The route is \`{modelId+}\` (it takes
the rest of the path), so the id sent as is, slash and all, is the same call (the README's
curl form).
`,
    parameters: new Parameters({ path: ModelInfoPath }, [
      {
        name: 'modelId',
        in: 'path',
        description: 'A hosted model id such as meta/llama-3.1-8b-instruct; the rest of the path, slashes included.',
        'x-greedy': true,
        example: 'meta/llama-3.1-8b-instruct',
      },
    ]),
    responses: {
      '200': {
        description: "The model, its system prompt and this service's usage of it.",
        content: { 'application/json': { schema: Ref(ModelDetailResponse) } },
      },
      ...errors('api', 400, 401, 404, 413, 415, 500, 502, 503),
    },
  },

  /** POST /api/admin/sync-models */
  syncModels: {
    tags: ['models'],
    summary: "Refresh every platform's cached model catalogue",
    description: `Roles: admin, super_admin. No body. Platforms are refreshed independently: one failing
platform is reported in \`platforms\` and \`errors\`, the others still refresh; 502 only when
none could be refreshed. Recorded in the audit log.
`,
    responses: {
      '200': {
        description: 'What changed per platform.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                syncedAt: Ref(Timestamp),
                platforms: Type.Object(
                  { managed: Ref(PlatformSyncReport), dedicated: Ref(PlatformSyncReport), hosted: Ref(PlatformSyncReport) },
                  { additionalProperties: false },
                ),
                errors: Type.Array(Type.String(), { description: "The failures' messages; empty when every platform refreshed." }),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 502, 503),
    },
  },
};
