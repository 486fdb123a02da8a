import { Type } from '@sinclair/typebox';
import { Pagination, Uuid } from '../../lib/http/schemas';

/**
 * A route's name is a model name /v1 callers send: the same namespace as resources' endpoint names
 * (a clash with either is 409), with no `/` (that is the `<platform>/<name>` form of a resource).
 */
export const RouteName = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$',
  description:
    '1 to 63 letters, digits, dots, dashes or underscores, starting and ending with a letter or digit; unique among resource and route names in any case',
});

const Strategy = Type.Union([Type.Literal('priority'), Type.Literal('weighted')], {
  description: 'priority: the first target not cooling down; weighted: a random one by weight among those not cooling down',
});

const Target = Type.Object(
  {
    resource_id: Uuid,
    weight: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'the share of calls under weighted (default 1)' })),
  },
  { additionalProperties: false },
);

const Targets = Type.Array(Target, {
  minItems: 1,
  maxItems: 10,
  description: '1 to 10 resources of the same kind (chat or embeddings), in priority order',
});

const CooldownSeconds = Type.Integer({
  minimum: 1,
  maximum: 3600,
  description: 'how long a target that failed is skipped, 1 to 3600 s (default 30)',
});

const RetryOn = Type.Array(
  Type.Union([
    Type.Literal('throttled'),
    Type.Literal('unavailable'),
    Type.Literal('timeout'),
    Type.Literal('not_in_service'),
    Type.Literal('context_window'),
  ]),
  { maxItems: 5, description: 'the failures that fall over to the next target (default all of them); one named twice counts once' },
);

export const CreateRouteBody = Type.Object(
  {
    name: RouteName,
    strategy: Strategy,
    targets: Targets,
    cooldown_seconds: Type.Optional(CooldownSeconds),
    retry_on: Type.Optional(RetryOn),
  },
  { additionalProperties: false },
);

export const UpdateRouteBody = Type.Object(
  {
    name: Type.Optional(RouteName),
    strategy: Type.Optional(Strategy),
    targets: Type.Optional(Targets),
    cooldown_seconds: Type.Optional(CooldownSeconds),
    retry_on: Type.Optional(RetryOn),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const RoutePath = Type.Object({ routeId: Uuid }, { additionalProperties: false });
export const ListRoutesQuery = Type.Object(Pagination, { additionalProperties: false });
