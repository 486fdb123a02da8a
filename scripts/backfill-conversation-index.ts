/**
 * `npm run backfill -- [--stage prod [--region eu-west-1]]`: the one-off step that lets conversation
 * listings show turns stored before the stream aggregator existed.
 *
 * Conversation listings read the conversation index (tables/messages.ts), whose entries every turn
 * writes in its own transaction (and the stream aggregator for turns an older version stored). Turns
 * stored in the layout before (one item per message, in GSI1 CONVMSG#<convId>) have none: this
 * writes them, conversation by conversation (users from the
 * USERS index, their conversations from USERCONV#<userId>, each conversation's old messages from
 * CONVMSG#<convId>; no Scan). Idempotent: an entry only ever holds the same content, so running it
 * twice, or while the service runs, changes nothing. Run it once right after deploying (or before and
 * again after, which leaves no window at all); `npm start` runs it by itself when it first turns the
 * local table's stream on.
 *
 * Everything else written the old way is read as it is (thread and legacy pages read old message
 * items; usage reads the old month and hour items lazily, tables/usage.ts), so nothing else is migrated.
 */
import { fileURLToPath } from 'node:url';

export async function backfillConversationIndex(log: (line: string) => void = () => undefined): Promise<{ conversations: number; entries: number }> {
  const [{ listUsers }, { listConversationsOfUser }, { oldLayoutTurnsOfConversation, putConversationIndexEntries }] = await Promise.all([
    import('../tables/users'),
    import('../tables/conversations'),
    import('../tables/messages'),
  ]);
  let conversations = 0;
  let entries = 0;
  let userCursor: string | undefined;
  do {
    const users = await listUsers(100, userCursor);
    for (const user of users.users) {
      let cursor: string | undefined;
      do {
        const page = await listConversationsOfUser(user.id, 100, cursor);
        for (const conversation of page.conversations) {
          const turns = await oldLayoutTurnsOfConversation(conversation.id);
          if (turns.length === 0) continue;
          await putConversationIndexEntries(turns, { oldLayout: true });
          conversations++;
          entries += turns.length;
          log(`  ${conversation.id}: ${turns.length} turns`);
        }
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    }
    userCursor = users.nextCursor ?? undefined;
  } while (userCursor);
  return { conversations, entries };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({ options: { stage: { type: 'string' }, region: { type: 'string' } } });
  const { targetTable } = await import('./target');
  targetTable(values);
  const done = await backfillConversationIndex((line) => console.log(line));
  console.log(`Conversation index: ${done.entries} entries written for ${done.conversations} conversations.`);
}
