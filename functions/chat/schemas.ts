import { Type, type Static } from '@sinclair/typebox';
import { Cursor, Limit, Uuid } from '../../lib/http/schemas';
import { MAX_MESSAGE_CHARS } from '../../lib/chat/limits';

// Not only white space: \S is JavaScript's, the same set String.prototype.trim() removes, which the
// domain checks again (lib/chat/turn.ts).
const Message = Type.String({
  minLength: 1,
  maxLength: MAX_MESSAGE_CHARS,
  pattern: '\\S',
  description: `the user's message, 1 to ${MAX_MESSAGE_CHARS} characters, not only white space`,
});

export const ThreadChatBody = Type.Object(
  {
    message: Message,
    conversationId: Uuid,
    resourceId: Uuid,
    threadId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type ThreadChatBody = Static<typeof ThreadChatBody>;

export const LegacyChatBody = Type.Object({ message: Message, conversationId: Uuid, resourceId: Uuid }, { additionalProperties: false });

const Page = { limit: Limit(200, 1000), cursor: Type.Optional(Cursor) };

export const ThreadQuery = Type.Object({ threadId: Uuid, conversationId: Uuid, ...Page }, { additionalProperties: false });

export const LegacyQuery = Type.Object({ conversationId: Uuid, ...Page }, { additionalProperties: false });
