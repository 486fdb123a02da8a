import fc from 'fast-check';
import { costOfTokens, nanosOf, usdOf, usdText } from '../../core/money';
import { tokenCost } from '../../lib/pricing/service';

const TITAN_EMBED_V2 = { input_per_1k: 0.00002, output_per_1k: 0 };

test('a 5-token Titan Text Embeddings v2 call costs 100 nano-dollars, shown as 0.0000001', () => {
  const cost = tokenCost(TITAN_EMBED_V2, 5, 0);
  expect(cost).toBe(100);
  expect(usdText(cost)).toBe('0.0000001');
  expect(usdOf(cost)).toBe(0.0000001);
});

test('a million 5-token embeddings sum to exactly $0.10', () => {
  let sum = 0;
  for (let i = 0; i < 1_000_000; i++) sum += tokenCost(TITAN_EMBED_V2, 5, 0);
  expect(sum).toBe(100_000_000);
  expect(usdText(sum)).toBe('0.1');
});

test('amounts are read from their decimal digits, not from a binary fraction', () => {
  expect(nanosOf(0.0000001)).toBe(100);
  expect(nanosOf('0.000000001')).toBe(1);
  expect(nanosOf(0.1 + 0.2)).toBe(300_000_000); // 0.30000000000000004: the 17th digit is below a nano-dollar
  expect(nanosOf(1234567.000000001)).toBe(1_234_567_000_000_001);
  expect(nanosOf('1E-7')).toBe(100);
  expect(nanosOf(-2.25)).toBe(-2_250_000_000);
  expect(() => nanosOf('twelve')).toThrow(RangeError);
});

test('the exact text of an amount has up to 9 decimals and no trailing zeros', () => {
  expect(usdText(0)).toBe('0');
  expect(usdText(1)).toBe('0.000000001');
  expect(usdText(12_500_000_000)).toBe('12.5');
  expect(usdText(-1_000_000)).toBe('-0.001');
});

test('a price finer than a nano-dollar a token is charged exactly, taken up to the next nano-dollar once per call', () => {
  // $0.00875 per 1M tokens (Nova Micro's cache read) is 8.75 nano-dollars a token.
  expect(costOfTokens([{ tokens: 4, usdPer1k: 0.00000875 }])).toBe(35);
  expect(costOfTokens([{ tokens: 3, usdPer1k: 0.00000875 }])).toBe(27); // 26.25 -> 27, never 26
});

test('any amount survives the trip through its text and its USD figure unchanged (below 2^53 nano-dollars)', () => {
  fc.assert(
    fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (nanos) => {
      expect(nanosOf(usdText(nanos))).toBe(nanos);
      if (Math.abs(nanos) < 1e15) expect(nanosOf(usdOf(nanos))).toBe(nanos);
    }),
  );
});

test('token costs add up exactly: the cost of a sum of calls is the sum of their costs at whole-nano prices', () => {
  const price = fc.integer({ min: 0, max: 75_000 }).map((nanosPerToken) => nanosPerToken / 1e6); // USD per 1k tokens
  fc.assert(
    fc.property(price, price, fc.array(fc.tuple(fc.nat(200_000), fc.nat(64_000)), { maxLength: 50 }), (input_per_1k, output_per_1k, calls) => {
      const p = { input_per_1k, output_per_1k };
      const each = calls.reduce((sum, [i, o]) => sum + tokenCost(p, i, o), 0);
      const whole = tokenCost(
        p,
        calls.reduce((n, [i]) => n + i, 0),
        calls.reduce((n, [, o]) => n + o, 0),
      );
      expect(each).toBe(whole);
    }),
  );
});
