import { orderTargets, type Candidate } from '../../lib/calls/choose';

/** The route's chooser, pure: a seeded random source makes the 1,000-call split exact to reproduce. */

/** mulberry32: a small seeded generator, so the test is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const candidates = (weights: Record<string, number>): Candidate<string>[] =>
  Object.entries(weights).map(([id, weight]) => ({ target: id, id, weight }));
const NOW = 1_800_000_000_000;

test('priority: the targets in the route’s order, those cooling down left out', () => {
  const order = orderTargets('priority', candidates({ a: 1, b: 1, c: 1 }), { a: { until: NOW + 1, reason: 'throttled' } }, NOW);
  expect(order).toEqual(['b', 'c']);
});

test('a cooldown that has ended is no cooldown', () => {
  expect(orderTargets('priority', candidates({ a: 1, b: 1 }), { a: { until: NOW, reason: 'timeout' } }, NOW)).toEqual(['a', 'b']);
});

test('weighted: over 1,000 calls the first choice splits by the weights within 10 %', () => {
  const weights = { a: 5, b: 3, c: 2 };
  const random = seeded(42);
  const firsts: Record<string, number> = { a: 0, b: 0, c: 0 };
  for (let i = 0; i < 1000; i++) firsts[orderTargets('weighted', candidates(weights), {}, NOW, random)[0] as string]! += 1;
  for (const [id, weight] of Object.entries(weights)) {
    const expected = (1000 * weight) / 10;
    expect(Math.abs((firsts[id] as number) - expected) / expected).toBeLessThan(0.1);
  }
});

test('weighted: every target not cooling down is in the order once, so a fallback reaches each', () => {
  const random = seeded(7);
  for (let i = 0; i < 50; i++) {
    const order = orderTargets('weighted', candidates({ a: 1, b: 100, c: 1, d: 1 }), { d: { until: NOW + 5, reason: 'unavailable' } }, NOW, random);
    expect([...order].sort()).toEqual(['a', 'b', 'c']);
  }
});

test('weighted: a cooling target is never chosen, whatever its weight', () => {
  const random = seeded(1);
  for (let i = 0; i < 100; i++) {
    expect(orderTargets('weighted', candidates({ heavy: 1000, light: 1 }), { heavy: { until: NOW + 1, reason: 'throttled' } }, NOW, random)).toEqual([
      'light',
    ]);
  }
});
