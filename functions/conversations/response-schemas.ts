// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/conversations/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { MessageMetadata, Platform, PromptCacheFigures, Timestamp, Uuid } from '../system/response-schemas';

/** A message in the conversation-wide listing, with where it lives. */
export const ConversationMessage = Named(
  'ConversationMessage',
  Type.Object(
    {
      role: Type.Unsafe<'user' | 'assistant'>({ type: 'string', enum: ['user', 'assistant'] }),
      content: Type.String(),
      timestamp: Ref(Timestamp),
      metadata: Ref(MessageMetadata),
      tokens_in: Type.Optional(Type.Integer({ minimum: 0 })),
      tokens_out: Type.Optional(Type.Integer({ minimum: 0 })),
      tokens_total: Type.Optional(Type.Integer({ minimum: 0 })),
      latency_ms: Type.Optional(Type.Integer({ minimum: 0 })),
      model_id: Type.Optional(Type.String()),
      cost_usd: Type.Optional(
        Type.Number({
          description:
            "An assistant reply's charge as the service recorded it (exact, up to 9 decimals; 0 on dedicated endpoints, which bill by the hour). Absent on replies stored before per-turn items.",
          minimum: 0,
        }),
      ),
      ...PromptCacheFigures,
      status: Type.Optional(Type.Unsafe<'failed'>({ const: 'failed' })),
      source: Type.Unsafe<'thread' | 'legacy'>({ type: 'string', enum: ['thread', 'legacy'] }),
      thread_id: OneOf([Ref(Uuid), Type.Null()], { description: 'Null for legacy messages.' }),
    },
    {
      description: 'A message in the conversation-wide listing, with where it lives.',
      additionalProperties: false,
      if: { properties: { role: { const: 'assistant' } } },
      then: { required: ['tokens_in', 'tokens_out', 'tokens_total', 'latency_ms', 'model_id'] },
    },
  ),
);

export const DeployedResource = Named(
  'DeployedResource',
  Type.Object(
    {
      resource_name: Type.String({ minLength: 1, maxLength: 256, pattern: '\\S' }),
      resource_type: Ref(Platform),
      cloud_resource_id: Type.String({ minLength: 1, maxLength: 2048, pattern: '\\S' }),
      region: Type.String({
        description: 'A region such as us-east-1 (or global for a hosted API).',
        maxLength: 32,
        pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
      }),
      estimated_hourly_cost: Type.Union([Type.Unsafe<0>({ const: 0 }), Type.Number({ minimum: 1e-9, maximum: 1000000 })], {
        description: 'USD per hour, 0 or from 0.000000001 to 1000000.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const Conversation = Named(
  'Conversation',
  Type.Object(
    {
      id: Ref(Uuid),
      user_id: Ref(Uuid, { description: 'The owner.' }),
      title: Type.String(),
      use_case: Type.String(),
      deployed_resource: Ref(DeployedResource),
      created_at: Ref(Timestamp),
      updated_at: Ref(Timestamp),
    },
    { additionalProperties: false },
  ),
);
