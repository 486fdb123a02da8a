// Written by scripts/openapi-import.ts from the hand-written contract; edit freely, it is a source of docs/openapi.yaml.
/** The operations of functions/chat/: their words, parameters, request bodies and answers. Routes come from functions.yml, roles from the handlers. */
import { Type } from '@sinclair/typebox';

import { LegacyMessage } from './response-schemas';
import { ChatMessage, NextCursor, Uuid } from '../system/response-schemas';
import { Parameters, Ref, RequestSchema, errors, type Operations } from '../../lib/http/contract';
import { LegacyChatBody, LegacyQuery, ThreadChatBody, ThreadQuery } from './schemas';

export const operations: Operations = {
  /** GET /api/chat/thread */
  chatThreadGet: {
    tags: ['chat'],
    summary: 'The messages of a thread, oldest first',
    description:
      "Roles: user, admin, super_admin (the conversation's owner; a super_admin may read every conversation). Errors use the thread shape.",
    parameters: new Parameters({ query: ThreadQuery }, [
      {
        name: 'threadId',
        in: 'query',
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      {
        name: 'conversationId',
        in: 'query',
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      { $ref: '#/components/parameters/MessageLimit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: "One page of the thread's messages.",
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                threadId: Ref(Uuid),
                messages: Type.Array(Ref(ChatMessage)),
                nextCursor: Ref(NextCursor),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('thread', 400, 401, 404, 413, 415, 500, 503),
    },
  },

  /** POST /api/chat/thread */
  chatThreadPost: {
    tags: ['chat'],
    summary: 'One chat turn in a thread',
    description: `Roles: user, admin, super_admin (the conversation's owner). Without \`threadId\` a new thread
is started. Returns the stored user message and the assistant reply. Errors use the thread
shape (\`threadId: ""\`, \`messages: []\`). 403 when the caller may not use the resource (its
access, set by admins: the message names the resource and says to ask an admin); 404 when the conversation, thread or resource is not
found; 409 when the resource is not InService. \`resourceId\` may name a route: the route's
targets the caller may use are tried in its order, falling over on the failures its \`retry_on\`
lists (403 when the caller may use none of them; 429, or 503, with \`Retry-After\` when every one
is throttled, or cooling down). 429 when a monthly budget cannot cover the
turn (the caller's, or one of their teams' or their own within a team: the message names
it; an upper bound of the turn's cost is held on each before the model is asked, as on /v1)
or one of their teams' rate limits is used up this minute (with \`Retry-After\`); 500 when
the model call fails.
`,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(ThreadChatBody, 'ThreadChatRequest', {
            '/properties/message': {
              description:
                "The user's message, 1 to 32000 characters (UTF-16 code units, as JavaScript counts them), not only white space (JavaScript's `\\s`, what `String.prototype.trim` removes).",
            },
            '/properties/conversationId': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/resourceId': {
              description:
                "A resource's id, or a route's (GET /api/routes): the turn then goes through the route's targets as a /v1 call does, and the reply's metadata names the route and the resource that answered. A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).",
              format: 'uuid',
            },
            '/properties/threadId': { description: 'Omitted starts a new thread.', format: 'uuid' },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The turn.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                threadId: Ref(Uuid),
                messages: Type.Array(Ref(ChatMessage), { description: 'The new user message and the assistant reply.', minItems: 2, maxItems: 2 }),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('thread', 400, 401, 403, 404, 409, 413, 415, 429, 500, 503),
    },
  },

  /** POST /api/chat */
  chatLegacyPost: {
    tags: ['chat'],
    summary: 'One chat exchange without thread context (legacy)',
    description:
      "Roles: user, admin, super_admin (the conversation's owner). Counted in usage like any turn, and against the caller's monthly budget when an admin set one (429 when it cannot cover the turn). 403 when the caller may not use the resource (its access, set by admins).",
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: new RequestSchema(LegacyChatBody, 'LegacyChatRequest', {
            '/properties/message': {
              description:
                "The user's message, 1 to 32000 characters (UTF-16 code units, as JavaScript counts them), not only white space (JavaScript's `\\s`, what `String.prototype.trim` removes).",
            },
            '/properties/conversationId': {
              description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).',
              format: 'uuid',
            },
            '/properties/resourceId': {
              description:
                "A resource's id, or a route's (GET /api/routes), as on POST /api/chat/thread. A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).",
              format: 'uuid',
            },
          }),
        },
      },
    },
    responses: {
      '200': {
        description: 'The reply.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                response: Type.String(),
                metadata: Type.Object(
                  {
                    model_response_time: Type.Number({ description: 'Seconds.', minimum: 0 }),
                    tokens_used: Type.Integer({ minimum: 0 }),
                    model_id: Type.String(),
                    user_id: Ref(Uuid),
                    username: Type.String(),
                  },
                  { additionalProperties: false },
                ),
              },
              { additionalProperties: false },
            ),
          },
        },
      },
      ...errors('api', 400, 401, 403, 404, 409, 413, 415, 429, 500, 503),
    },
  },

  /** GET /api/chat/legacy */
  chatLegacyGet: {
    tags: ['chat'],
    summary: "A conversation's legacy (thread-less) messages, oldest first",
    description: "Roles: user, admin, super_admin (the conversation's owner; a super_admin may read every conversation).",
    parameters: new Parameters({ query: LegacyQuery }, [
      {
        name: 'conversationId',
        in: 'query',
        schema: { description: 'A UUID in lower case, as the service issues them (an id in upper case names nothing and is a 400).', format: 'uuid' },
      },
      { $ref: '#/components/parameters/MessageLimit' },
      { $ref: '#/components/parameters/Cursor' },
    ]),
    responses: {
      '200': {
        description: 'One page of legacy messages.',
        content: {
          'application/json': {
            schema: Type.Object(
              {
                success: Type.Unsafe<true>({ const: true }),
                messages: Type.Array(Ref(LegacyMessage)),
                source: Type.Unsafe<'legacy'>({ description: 'The legacy table marker.', const: 'legacy' }),
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
