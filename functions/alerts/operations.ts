// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/alerts/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { AlertChannel, AlertDelivery, AlertEvent } from './response-schemas';
import { NextCursor } from '../system/response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { ChannelPath, CreateChannelBody, ListDeliveriesQuery } from './schemas';

export const operations: Operations = {
  /** GET /api/alerts/channels */
  listAlertChannels: {
    tags: ['alerts'],
    summary: 'Every alert channel, secrets masked',
    description: "Roles: admin, super_admin. A webhook's secret shows only as `secret_hint`.",
    responses: {
      '200': {
        description: 'The channels.',
        content: {
          'application/json': { schema: Type.Object({ success: Type.Unsafe<true>({ const: true }), channels: Type.Array(Ref(AlertChannel)) }) },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** POST /api/alerts/channels */
  createAlertChannel: {
    tags: ['alerts'],
    summary: 'Add a channel that alerts go to (webhook, SNS topic or e-mail)',
    description: `Roles: admin, super_admin. A \`webhook\` needs \`url\` (https, a host that resolves to public
addresses only; http://127.0.0.1 under the local stage) and may carry \`secret\` (the HMAC key
of \`x-model-ops-signature\`; generated and shown once in this answer when absent) and
\`format\` (\`json\`, default, or \`slack\`). An \`sns\` channel needs \`topic_arn\`, an \`email\`
channel \`address\`. A secret is never shown again. Recorded in the audit log
(\`alert_channel.create\`).
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(CreateChannelBody, 'CreateAlertChannelRequest', {
            '/properties/name': { description: '1 to 100 characters' },
            '/properties/url': { description: 'webhook: an https URL of a public host' },
            '/properties/secret': { description: 'webhook: the HMAC signing secret (generated and shown once when absent)' },
            '/properties/topic_arn': { description: 'sns: the topic ARN' },
            '/properties/address': { description: 'email: the recipient address' },
          }),
        },
      },
    },
    responses: {
      '201': {
        description: 'The channel; `secret` only when the service generated it.',
        content: { 'application/json': { schema: Type.Object({ success: Type.Unsafe<true>({ const: true }), channel: Ref(AlertChannel) }) } },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },

  /** DELETE /api/alerts/channels/{channelId} */
  deleteAlertChannel: {
    tags: ['alerts'],
    summary: 'Remove an alert channel',
    description: 'Roles: admin, super_admin. 404 when there is no such channel. Recorded in the audit log (`alert_channel.delete`).',
    parameters: new Parameters({ path: ChannelPath }, [{ $ref: '#/components/parameters/AlertChannelId' }]),
    responses: {
      '200': { description: 'Removed.', content: { 'application/json': { schema: Type.Object({ success: Type.Unsafe<true>({ const: true }) }) } } },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** POST /api/alerts/channels/{channelId}/test */
  testAlertChannel: {
    tags: ['alerts'],
    summary: 'Send a test event to one channel',
    description: `Roles: admin, super_admin. An \`alert.test\` event is recorded and delivered to this channel
only, the way every event is (from the table's stream, retried); GET /api/alerts/deliveries
shows how it went. Recorded in the audit log (\`alert_channel.test\`).
`,
    parameters: new Parameters({ path: ChannelPath }, [{ $ref: '#/components/parameters/AlertChannelId' }]),
    responses: {
      '202': {
        description: 'The test event, on its way.',
        content: { 'application/json': { schema: Type.Object({ success: Type.Unsafe<true>({ const: true }), event: Ref(AlertEvent) }) } },
      },
      ...errors('api', 400, 401, 403, 404, 413, 415, 500, 503),
    },
  },

  /** GET /api/alerts/deliveries */
  listAlertDeliveries: {
    tags: ['alerts'],
    summary: 'Every delivery of an alert event to a channel, newest first',
    description: `Roles: admin, super_admin. One row per event and channel: \`delivered\`, or \`failed\` with the
last error (a failed delivery is retried with its stream batch, and its row turns
\`delivered\` when one attempt gets through).
`,
    parameters: new Parameters({ query: ListDeliveriesQuery }, [
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of deliveries.',
        content: {
          'application/json': {
            schema: Type.Object({
              success: Type.Unsafe<true>({ const: true }),
              deliveries: Type.Array(Ref(AlertDelivery)),
              nextCursor: Ref(NextCursor),
            }),
          },
        },
      },
      ...errors('api', 400, 401, 403, 413, 415, 500, 503),
    },
  },
};
