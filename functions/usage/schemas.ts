import { Type } from '@sinclair/typebox';
import { Uuid } from '../../lib/http/schemas';

export const UsageQuery = Type.Object(
  {
    conversationId: Type.Optional(Uuid),
    keyId: Type.Optional(Uuid),
    teamId: Type.Optional(Uuid),
    scope: Type.Optional(Type.Union([Type.Literal('user'), Type.Literal('all')], { description: "'user' (the caller, default) or 'all' (admins)" })),
    session: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'a client session id (X-Claude-Code-Session-Id)' })),
  },
  { additionalProperties: false },
);
