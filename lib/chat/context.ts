import type { ChatTurn } from '../platforms/types';
import type { StoredMessage } from '../../tables/messages';

/** The usual rough rule for English text; only used to keep the context under its budget. */
const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/**
 * The earlier turns sent to the model with a new message, oldest first.
 *
 * `recent` is the thread's newest messages, newest first (one bounded query). Only whole turns that
 * were answered go in: a failed user message has no reply, and a turn cut in half by the query's
 * limit would leave two user messages in a row, which the platforms refuse (Converse requires the
 * roles to alternate). Turns are taken newest first until the next one would exceed the token
 * budget; older turns are then dropped, so the context is always a contiguous recent stretch.
 */
export function buildContext(recent: StoredMessage[], maxTurns: number, tokenBudget: number): ChatTurn[] {
  const turns = new Map<string, { user?: StoredMessage; assistant?: StoredMessage }>();
  for (const m of recent) {
    const turn = turns.get(m.turn_id) ?? {};
    if (m.seq === 0) turn.user = m;
    else turn.assistant = m;
    turns.set(m.turn_id, turn);
  }
  const picked: ChatTurn[][] = [];
  let used = 0;
  // Map keeps insertion order: newest turn first, as the query returned them.
  for (const { user, assistant } of turns.values()) {
    if (picked.length >= maxTurns) break;
    if (!user || !assistant || user.status === 'failed') continue;
    const cost = estimateTokens(user.content) + estimateTokens(assistant.content);
    if (used + cost > tokenBudget) break;
    used += cost;
    picked.push([
      { role: 'user', content: user.content },
      { role: 'assistant', content: assistant.content },
    ]);
  }
  return picked.reverse().flat();
}
