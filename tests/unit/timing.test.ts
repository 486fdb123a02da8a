/** What people are told a dedicated endpoint's state change takes (lib/resources/timing.ts). */
import { stateChangeWords } from '../../lib/resources/timing';

test('without a figure from the service configuration it is SageMaker’s usual 5 to 10 minutes', () => {
  expect(stateChangeWords(undefined)).toBe('5 to 10 minutes');
});

test('a figure reads as people say it: a moment, seconds, or minutes', () => {
  expect([0, 1, 5, 89, 90, 600].map((s) => stateChangeWords(s))).toEqual([
    'a moment',
    'a moment',
    'about 5 seconds',
    'about 89 seconds',
    'about 2 minutes',
    'about 10 minutes',
  ]);
});
