import { Type, type Static } from '@sinclair/typebox';
import { Cursor, Limit, Pagination, Usd, Uuid } from '../../lib/http/schemas';

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S', description: `1 to ${max} characters, not only spaces` });

/** docs/openapi.yaml Conversation: the resource a conversation is about, as the client describes it. */
export const DeployedResource = Type.Object(
  {
    resource_name: Text(256),
    resource_type: Type.Union([Type.Literal('managed'), Type.Literal('dedicated'), Type.Literal('hosted')], {
      description: 'managed, dedicated or hosted',
    }),
    cloud_resource_id: Text(2048),
    // Not only AWS regions: a hosted API may be "global".
    region: Type.String({ pattern: '^[a-z0-9]+(-[a-z0-9]+)*$', maxLength: 32, description: 'a region such as us-east-1' }),
    estimated_hourly_cost: Usd(1_000_000, 'USD per hour'),
  },
  { additionalProperties: false },
);

export const CreateConversationBody = Type.Object(
  {
    title: Text(200),
    use_case: Text(500),
    deployed_resource: DeployedResource,
  },
  { additionalProperties: false },
);
export type CreateConversationBody = Static<typeof CreateConversationBody>;

export const ListConversationsQuery = Type.Object(Pagination, { additionalProperties: false });

export const ConversationPath = Type.Object({ id: Uuid }, { additionalProperties: false });

export const ConversationMessagesQuery = Type.Object({ limit: Limit(100, 500), cursor: Type.Optional(Cursor) }, { additionalProperties: false });
