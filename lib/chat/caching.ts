import type { Resource } from '../../tables/resources';
import { promptCachingOf } from '../platforms/capabilities';
import type { ChatTurn } from '../platforms/types';
import { estimateTokens } from './context';

/**
 * Prompt caching for the spec's chat (docs/bedrock.md "Prompt caching in the session chat"): each turn
 * resends the thread's history, so the history is the stable front of the prompt that Bedrock can
 * cache. On a model that caches checkpoints in its messages, a 5-minute checkpoint (Converse
 * `cachePoint`) goes after the history, where its prefix (system prompt and history) reaches the
 * model's minimum tokens a checkpoint ("Prompt caching for faster model inference"; shorter, Bedrock
 * writes nothing and the checkpoint would only inflate the turn's budget hold).
 *
 * A second checkpoint goes where the previous turn put its own: after the history but its last turn.
 * Bedrock reads a cached prefix only at a checkpoint of the request, so that one is the read, and the
 * checkpoint after the whole history writes what the last turn added: a conversation pays the write
 * price once for each part of its history and the read price each time after. When the context
 * window slides (CHAT_CONTEXT_TURNS, CHAT_CONTEXT_TOKEN_BUDGET drop the oldest turn) the prefix
 * changes and is written again.
 *
 * Five minutes, not an hour: a chat's next turn usually comes within minutes, each read renews the
 * entry, and an hour's write costs 2x the input price against 1.25x. The estimate is the context's own
 * (about four characters a token); Bedrock's count decides what is written, and the turn is billed
 * from what it reports.
 */
const TTL = '5m';

export function withHistoryCheckpoints(resource: Resource, system: string | undefined, history: ChatTurn[]): ChatTurn[] {
  const caching = promptCachingOf(resource);
  if (!caching?.fields.includes('messages') || !caching.ttls.includes(TTL)) return history;
  // The prompt's tokens up to the end of each whole turn (the history alternates user, assistant).
  let tokens = system ? estimateTokens(system) : 0;
  const turnEnds: number[] = [];
  history.forEach((turn, i) => {
    tokens += typeof turn.content === 'string' ? estimateTokens(turn.content) : 0;
    if (turn.role === 'assistant' && tokens >= caching.minTokens) turnEnds.push(i);
  });
  const marked = new Set(turnEnds.slice(-2));
  if (marked.size === 0) return history;
  return history.map((turn, i) => (marked.has(i) && turn.role === 'assistant' ? { ...turn, cache: TTL } : turn));
}
