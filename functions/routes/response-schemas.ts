// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/routes/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';

/** Unique among resource and route names in any case; sent as `model` on /v1. */
export const RouteName = Named(
  'RouteName',
  Type.String({
    minLength: 1,
    maxLength: 63,
    pattern: '^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$',
    description: 'Unique among resource and route names in any case; sent as `model` on /v1.',
  }),
);

export const RouteFailure = Named(
  'RouteFailure',
  Type.Unsafe<'throttled' | 'unavailable' | 'timeout' | 'not_in_service' | 'context_window'>({
    type: 'string',
    enum: ['throttled', 'unavailable', 'timeout', 'not_in_service', 'context_window'],
  }),
);

export const RouteTarget = Named(
  'RouteTarget',
  Type.Object(
    {
      resource_id: Type.String({ format: 'uuid' }),
      weight: Type.Integer(),
      endpoint_name: Type.String({ description: "The resource's name (for a deleted one, the name it had)." }),
      type: Type.Unsafe<'managed' | 'dedicated' | 'hosted'>({ type: 'string', enum: ['managed', 'dedicated', 'hosted'] }),
      status: Type.String({ description: "The resource's status, or `gone` once it was deleted." }),
      gone: Type.Boolean(),
      cooldown_until: Type.Unsafe<string | null>({
        type: ['string', 'null'],
        format: 'date-time',
        description: 'Until when every caller skips it; null when it is not cooling down.',
      }),
      cooldown_reason: OneOf([Ref(RouteFailure), Type.Null()]),
    },
    { additionalProperties: false },
  ),
);

export const Route = Named(
  'Route',
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      name: Ref(RouteName),
      strategy: Type.Unsafe<'priority' | 'weighted'>({ type: 'string', enum: ['priority', 'weighted'] }),
      kind: Type.Unsafe<'chat' | 'embeddings' | null>({
        type: ['string', 'null'],
        enum: ['chat', 'embeddings', null],
        description: 'What its targets serve (null when every target is gone).',
      }),
      targets: Type.Array(Ref(RouteTarget)),
      cooldown_seconds: Type.Integer(),
      retry_on: Type.Array(Ref(RouteFailure)),
      created_at: Type.String({ format: 'date-time' }),
      updated_at: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
);

export const RouteResponse = Named(
  'RouteResponse',
  Type.Object({ success: Type.Unsafe<true>({ const: true }), route: Ref(Route) }, { additionalProperties: false }),
);
