// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/conversations/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { Conversation, ConversationMessage } from './response-schemas';
import { NextCursor, Uuid } from '../system/response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { ConversationMessagesQuery, ConversationPath, CreateConversationBody, ListConversationsQuery } from './schemas';

export const operations: Operations = {
  /** GET /api/conversations */
  listConversations: {
    tags: ['conversations'],
    summary: "The caller's conversations, newest first",
    description: 'Roles: user, admin, super_admin (each sees their own).',
    parameters: new Parameters({ query: ListConversationsQuery }, [
      { $ref: '#/components/parameters/Limit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of conversations.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                conversations: Type.Array(Ref(Conversation)),
                count: Type.Integer({ minimum: 0 }),
                nextCursor: Ref(NextCursor),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** POST /api/conversations */
  createConversation: {
    tags: ['conversations'],
    summary: 'Create a conversation',
    description: 'Roles: user, admin, super_admin. The conversation belongs to the caller.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(CreateConversationBody, 'CreateConversationRequest', {
            '/properties/deployed_resource/properties/region': { description: 'A region such as us-east-1 (or global for a hosted API).' },
            '/properties/deployed_resource/properties/estimated_hourly_cost': { description: 'USD per hour, 0 or from 0.000000001 to 1000000.' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'Created.',
        content: {
          'application/json': {
            schema: Type.Object(
              { success: Type.Unsafe<true>({ const: true }), conversation_id: Ref(Uuid), conversation: Ref(Conversation) },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 413, 415, 500, 503),
    },
  },

  /** GET /api/conversations/{id}/messages */
  listConversationMessages: {
    tags: ['conversations'],
    summary: 'Every message of a conversation, threads and legacy, oldest first',
    description:
      "Roles: user, admin, super_admin (the conversation's owner; a super_admin may read every conversation). A turn is listed as soon as its chat request has answered (read-your-writes), a failed one too (its user message with status failed).",
    parameters: new Parameters({ query: ConversationMessagesQuery, path: ConversationPath }, [
      {
        name: 'id',
        in: 'path',
        description: 'The conversation id.',
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      { name: 'limit', in: 'query', description: 'Page size, 1 to 500; default 100.' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of messages.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                conversationId: Ref(Uuid),
                messages: Type.Array(Ref(ConversationMessage)),
                count: Type.Integer({ minimum: 0 }),
                nextCursor: Ref(NextCursor),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 404, 413, 415, 500, 503),
    },
  },
};
