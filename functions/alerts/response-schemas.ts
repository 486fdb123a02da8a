// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The response schemas of functions/alerts/ (and schemas the document shows that no request check declares). */
import { Type } from '@sinclair/typebox';
import { Named, OneOf, Ref } from '../../lib/http/contract';
import { Timestamp, Uuid } from '../system/response-schemas';

/** An alert channel as answers show it (never its secret). */
export const AlertChannel = Named(
  'AlertChannel',
  Type.Object(
    {
      id: Ref(Uuid),
      name: Type.String(),
      type: Type.Unsafe<'webhook' | 'sns' | 'email'>({ enum: ['webhook', 'sns', 'email'] }),
      created_at: Ref(Timestamp),
      created_by: Ref(Uuid),
      url: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      format: Type.Unsafe<'json' | 'slack' | null>({ enum: ['json', 'slack', null] }),
      topic_arn: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      address: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
      secret_hint: Type.Unsafe<string | null>({ type: ['string', 'null'], description: "The secret's last four characters behind a fixed mask." }),
      secret: Type.Optional(Type.String({ description: 'Only in the answer to POST, only when the service generated the secret.' })),
    },
    { description: 'An alert channel as answers show it (never its secret).' },
  ),
);

/** What a channel receives (webhooks: the raw JSON body, signed in `x-model-ops-signature: */
export const AlertEvent = Named(
  'AlertEvent',
  Type.Object(
    {
      id: Ref(Uuid),
      event: Type.Unsafe<'budget.threshold' | 'endpoint.stopped' | 'orphan.found' | 'alert.test'>({
        enum: ['budget.threshold', 'endpoint.stopped', 'orphan.found', 'alert.test'],
      }),
      at: Ref(Timestamp),
    },
    {
      description: `What a channel receives (webhooks: the raw JSON body, signed in \`x-model-ops-signature:
sha256=<hex HMAC-SHA256 of the body with the channel's secret>\`). \`budget.threshold\` events
carry \`scope\`, \`threshold\`, \`spent_usd\`, \`budget_usd\` and \`period\`; \`alert.test\` events the
channel. The same \`id\` on every attempt: receivers de-duplicate by it.
`,
    },
  ),
);

export const AlertDelivery = Named(
  'AlertDelivery',
  Type.Object({
    event_id: Ref(Uuid),
    event: Type.String(),
    channel_id: Ref(Uuid),
    channel_name: Type.String(),
    status: Type.Unsafe<'delivered' | 'failed'>({ enum: ['delivered', 'failed'] }),
    attempts: Type.Integer({ minimum: 1 }),
    last_error: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
    event_at: Ref(Timestamp),
    updated_at: Ref(Timestamp),
    delivered_at: OneOf([Ref(Timestamp), Type.Null()]),
  }),
);
