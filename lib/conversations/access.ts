import { Forbidden, NotFound } from '../errors';
import type { Conversation } from '../../tables/conversations';
import type { User } from '../../tables/users';

/**
 * Who may see and use a conversation. A conversation belongs to its creator: anyone else gets the
 * same 404 as for a conversation that does not exist (so ids of other people's conversations cannot
 * be probed), whatever their role, except a super_admin, who may read every conversation. Posting
 * into a conversation stays with its owner: a super_admin reading someone else's is told so (403)
 * rather than having turns, and their cost, recorded in another person's name.
 */
export function readableConversation(conversation: Conversation | undefined, user: User): Conversation {
  if (!conversation || (conversation.user_id !== user.id && user.role !== 'super_admin')) {
    throw new NotFound('Conversation not found');
  }
  return conversation;
}

export function writableConversation(conversation: Conversation | undefined, user: User): Conversation {
  const readable = readableConversation(conversation, user);
  if (readable.user_id !== user.id) throw new Forbidden("Only the conversation's owner can post messages into it");
  return readable;
}
