import { Type, type Static } from '@sinclair/typebox';
import { Pagination, Uuid } from '../../lib/http/schemas';

export const CreateChannelBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: '1 to 100 characters' }),
    type: Type.Union([Type.Literal('webhook'), Type.Literal('sns'), Type.Literal('email')]),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'webhook: an https URL of a public host' })),
    secret: Type.Optional(
      Type.String({ minLength: 16, maxLength: 256, description: 'webhook: the HMAC signing secret (generated and shown once when absent)' }),
    ),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('slack')])),
    topic_arn: Type.Optional(
      Type.String({
        pattern: '^arn:aws[a-z-]*:sns:[a-z0-9-]+:\\d{12}:[A-Za-z0-9_-]{1,256}(\\.fifo)?$',
        maxLength: 400,
        description: 'sns: the topic ARN',
      }),
    ),
    address: Type.Optional(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', maxLength: 254, description: 'email: the recipient address' })),
  },
  { additionalProperties: false },
);
export type CreateChannelBody = Static<typeof CreateChannelBody>;

export const ChannelPath = Type.Object({ channelId: Uuid }, { additionalProperties: false });

export const ListDeliveriesQuery = Type.Object(Pagination, { additionalProperties: false });
