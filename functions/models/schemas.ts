import { Type, type Static } from '@sinclair/typebox';
import { WithDefault } from '../../lib/http/schemas';

/** GET /api/models/dedicated (docs/openapi.yaml listDedicatedModels; docs/openapi.yaml's limits): search, max (default 20, at most 50), source. */
export const DedicatedModelsQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({ maxLength: 100, pattern: '^[^\\u0000-\\u001f]*$', description: 'text to find in model names, at most 100 characters' }),
    ),
    // A string with a pattern, so a refusal says "must match pattern". Query conversion is strict
    // (lib/http/validation.ts), so Limit(20, 50) would do as well; only that wording would change.
    max: WithDefault(Type.String({ pattern: '^(?:[1-9]|[1-4][0-9]|50)$', description: 'an integer from 1 to 50' }), '20'),
    source: WithDefault(
      Type.Union([Type.Literal('public'), Type.Literal('account'), Type.Literal('all')], { description: 'public, account or all' }),
      'public',
    ),
  },
  { additionalProperties: false },
);
export type DedicatedModelsQuery = Static<typeof DedicatedModelsQuery>;

/** GET /api/models/hosted: debug=1 (or true) adds the raw upstream answer. */
export const HostedModelsQuery = Type.Object(
  { debug: Type.Optional(Type.Boolean({ description: '1, 0, true or false' })) },
  { additionalProperties: false },
);

/**
 * The model id of a model-info path, as the route delivers it: hosted ids keep their slash (greedy
 * `{modelId+}`) or arrive with it as %2F. The exact per-platform form is checked once decoded
 * (lib/catalogue/model-id.ts).
 */
export const ModelInfoPath = Type.Object(
  { modelId: Type.String({ minLength: 1, maxLength: 300, pattern: '^[A-Za-z0-9._:/%-]+$', description: 'a model id' }) },
  { additionalProperties: false },
);
