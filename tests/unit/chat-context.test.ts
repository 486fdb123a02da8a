import { buildContext, estimateTokens } from '../../lib/chat/context';
import type { StoredMessage } from '../../tables/messages';

let clock = 0;
/** A turn as the thread query returns it: newest first, so the reply (seq 1) before the question. */
function turn(question: string, answer: string | null, status: 'ok' | 'failed' = 'ok'): StoredMessage[] {
  const ts = new Date(Date.UTC(2024, 0, 1) + clock++ * 1000).toISOString();
  const base = {
    source: 'thread' as const,
    conversation_id: 'c',
    thread_id: 't',
    turn_id: `turn-${clock}`,
    turn_ts: ts,
    timestamp: ts,
    metadata: {},
    user_id: 'u',
    resource_id: 'r',
  };
  const user: StoredMessage = { ...base, seq: 0, role: 'user', content: question, status };
  if (answer === null) return [user];
  return [{ ...base, seq: 1, role: 'assistant', content: answer, status: 'ok' }, user];
}
/** Oldest turn first in, newest first out (as the descending query). */
const newestFirst = (...turns: StoredMessage[][]) => turns.reverse().flat();

describe('buildContext', () => {
  test('returns the answered turns oldest first, alternating user and assistant', () => {
    const context = buildContext(newestFirst(turn('q1', 'a1'), turn('q2', 'a2')), 10, 10_000);
    expect(context).toEqual([
      { role: 'user', content: 'q1' },
      { role: 'assistant', content: 'a1' },
      { role: 'user', content: 'q2' },
      { role: 'assistant', content: 'a2' },
    ]);
  });

  test('leaves out failed user messages, which never got a reply', () => {
    const context = buildContext(newestFirst(turn('q1', 'a1'), turn('lost', null, 'failed'), turn('q3', 'a3')), 10, 10_000);
    expect(context.map((t) => t.content)).toEqual(['q1', 'a1', 'q3', 'a3']);
  });

  test('leaves out a turn whose user message the query limit cut off', () => {
    const messages = newestFirst(turn('q1', 'a1'), turn('q2', 'a2'));
    const cut = messages.slice(0, 3); // a2, q2, a1
    expect(buildContext(cut, 10, 10_000).map((t) => t.content)).toEqual(['q2', 'a2']);
  });

  test('keeps at most the configured number of turns, the newest', () => {
    const context = buildContext(newestFirst(turn('q1', 'a1'), turn('q2', 'a2'), turn('q3', 'a3')), 2, 10_000);
    expect(context.map((t) => t.content)).toEqual(['q2', 'a2', 'q3', 'a3']);
  });

  test('stops at the token budget (about 4 characters a token), dropping the older turns', () => {
    const big = 'x'.repeat(400); // 100 tokens
    // q3 + a3 cost 2 tokens, the big turn 200: a budget of 202 holds both, the old turn no more.
    const turns = () => newestFirst(turn('old', 'old answer'), turn(big, big), turn('q3', 'a3'));
    expect(buildContext(turns(), 10, 202).map((t) => t.content)).toEqual([big, big, 'q3', 'a3']);
    // One token less and the big turn no longer fits; the older, smaller turn is not taken past it.
    expect(buildContext(turns(), 10, 201).map((t) => t.content)).toEqual(['q3', 'a3']);
  });

  test('a zero budget or zero turns sends no context', () => {
    expect(buildContext(newestFirst(turn('q', 'a')), 10, 0)).toEqual([]);
    expect(buildContext(newestFirst(turn('q', 'a')), 0, 1000)).toEqual([]);
  });

  test('estimateTokens rounds up a quarter of the length', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('abcd')).toBe(1);
    expect(estimateTokens('abcde')).toBe(2);
  });
});
