import { callCost, tierPrice } from '../../lib/pricing/service';

/** How a call on a priced tier is billed: the tier's own prices, its cache scaled as its input price is unless given. */

// Claude-like: $0.003 / $0.015 per 1K; cache read $0.0003, 5-minute write $0.00375, 1-hour write $0.006.
const standard = { input_per_1k: 0.003, output_per_1k: 0.015, cache_read_per_1k: 0.0003, cache_write_per_1k: 0.00375, cache_write_1h_per_1k: 0.006 };
const cache = { read: 1000, write5m: 1000, write1h: 1000 };

describe('a tier price an admin set', () => {
  const priced = {
    ...standard,
    service_tiers: {
      flex: { input_per_1k: 0.0015, output_per_1k: 0.0075 },
      priority: { input_per_1k: 0.0051, output_per_1k: 0.0255, cache_read_per_1k: 0.0004 },
    },
  };

  test('prices plain tokens at the tier price exactly', () => {
    // 1000 x 1500 + 100 x 7500 nano-dollars per 1K tokens
    expect(callCost(priced, { tokensIn: 1000, tokensOut: 100, serviceTier: 'flex' })).toBe(1_500_000 + 750_000);
  });

  test('scales the Standard cache prices by the tier input price over the Standard one where the tier gives none', () => {
    // Flex input is half of Standard's: cache read 150, 5-minute write 1875, 1-hour write 3000 nano-dollars per token
    expect(tierPrice(priced, 'flex')).toEqual({
      price: { input_per_1k: 0.0015, output_per_1k: 0.0075, cache_read_per_1k: 0.00015, cache_write_per_1k: 0.001875, cache_write_1h_per_1k: 0.003 },
      source: 'admin',
    });
    expect(callCost(priced, { tokensIn: 0, tokensOut: 0, cache, serviceTier: 'flex' })).toBe(150_000 + 1_875_000 + 3_000_000);
  });

  test("uses the tier's own cache price where given, the scaled one for the others (Priority at 1.7x)", () => {
    expect(tierPrice(priced, 'priority').price).toMatchObject({
      cache_read_per_1k: 0.0004,
      cache_write_per_1k: 0.006375,
      cache_write_1h_per_1k: 0.0102,
    });
  });

  test('leaves Standard calls at the entry price', () => {
    expect(callCost(priced, { tokensIn: 1000, tokensOut: 100, serviceTier: 'default' })).toBe(3_000_000 + 1_500_000);
  });
});

describe('a tier without a price', () => {
  test('costs the working figure, shown per price (Flex 50 %, Priority 175 %)', () => {
    expect(tierPrice(standard, 'flex')).toMatchObject({ price: { input_per_1k: 0.0015, cache_write_1h_per_1k: 0.003 }, source: 'default' });
    expect(tierPrice(standard, 'priority').price.output_per_1k).toBe(0.02625);
    expect(callCost(standard, { tokensIn: 1000, tokensOut: 100, serviceTier: 'priority' })).toBe((3_000_000 + 1_500_000) * 1.75);
  });
});
