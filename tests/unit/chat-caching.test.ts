import { withHistoryCheckpoints } from '../../lib/chat/caching';
import type { ChatTurn } from '../../lib/platforms/types';
import type { Resource } from '../../tables/resources';

const model = (type: Resource['type'], model_id: string) => ({ type, model_id }) as Resource;
const SONNET = model('managed', 'anthropic.claude-sonnet-4-5-20250929-v1:0');
/** A turn of about `tokens` tokens a side (four characters a token). */
const pair = (tokens: number): ChatTurn[] => [
  { role: 'user', content: 'u'.repeat(tokens * 4) },
  { role: 'assistant', content: 'a'.repeat(tokens * 4) },
];
const marks = (turns: ChatTurn[]) => turns.flatMap((t, i) => ('cache' in t && t.cache ? [`${i}:${t.cache}`] : []));

test('checkpoints go after the last two whole turns whose prefix reaches the model minimum, 5 minutes each', () => {
  const history = [...pair(100), ...pair(400), ...pair(100), ...pair(100)];
  // Prefixes at turn ends: 200, 1,000, 1,200, 1,400 tokens; Sonnet 4.5 caches from 1,024.
  expect(marks(withHistoryCheckpoints(SONNET, undefined, history))).toEqual(['5:5m', '7:5m']);
});

test('the system prompt counts towards the prefix', () => {
  const history = [...pair(500)];
  expect(marks(withHistoryCheckpoints(SONNET, undefined, history))).toEqual([]);
  expect(marks(withHistoryCheckpoints(SONNET, 's'.repeat(100 * 4), history))).toEqual(['1:5m']);
});

test('a model that caches no messages, and any other platform, get the history unchanged', () => {
  const history = [...pair(2_000), ...pair(2_000)];
  for (const resource of [model('managed', 'anthropic.claude-3-haiku-20240307-v1:0'), model('hosted', 'meta/llama-3.1-8b-instruct')]) {
    expect(withHistoryCheckpoints(resource, undefined, history)).toBe(history);
  }
  // Haiku 4.5 caches from 4,096 tokens: two 4,000-token turns reach it once.
  expect(marks(withHistoryCheckpoints(model('managed', 'us.anthropic.claude-haiku-4-5-20251001-v1:0'), undefined, history))).toEqual(['3:5m']);
});
