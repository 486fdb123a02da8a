import { Type, type Static } from '@sinclair/typebox';
import { Cursor, Limit, Uuid } from '../../lib/http/schemas';
import { MAX_MESSAGE_CHARS } from '../../lib/chat/limits';

// An empty or blank message is refused as missing by the domain (spec 4.5 wording), so no minLength here.
const Message = Type.String({ maxLength: MAX_MESSAGE_CHARS, description: `the user's message, at most ${MAX_MESSAGE_CHARS} characters` });

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
