import fc from 'fast-check';
import { costOfInstanceTime, costOfTokens, nanosOf, usdOf, usdText, usdTimes } from '../../core/money';
import { monthToDate } from '../../lib/resources/billing';
import { hourlyEstimate } from '../../lib/deploy/estimate';
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

describe('dedicated endpoints: hourly money exact, as token money is', () => {
  test('an hourly price times instances, days and months keeps every nano-dollar (a 7th decimal was rounded away)', () => {
    expect(usdTimes(0.1234567, 24)).toBe(2.9629608);
    expect(usdTimes(1.408, 730)).toBe(1027.84);
    expect(hourlyEstimate('ml.g5.xlarge', 3, 0.1234567)).toMatchObject({ hourly_usd: 0.3703701, daily_usd: 8.8888824, monthly_usd: 270.370173 });
  });

  test('instance time is charged to the millisecond, upwards once: one second of a $0.0000036 hour is one nano-dollar', () => {
    expect(costOfInstanceTime(0.0000036, 1)).toBe(1);
    expect(costOfInstanceTime(1.408, 3600)).toBe(1_408_000_000);
    expect(costOfInstanceTime(1.408, 0.001)).toBe(392); // 391.11… nano-dollars, taken up
  });

  test('a month to date below a micro-dollar is no longer shown as 0', () => {
    const at = new Date('2026-11-28T07:00:00.000Z');
    const since = new Date(at.getTime() - 1000).toISOString();
    const mtd = monthToDate({ billing_month: '2026-11', billed_instance_seconds: 0, billable_since: since, instance_count: 1 }, 0.0001, at);
    expect(mtd.usd).toBe(usdOf(28)); // $0.0001 an hour for one second: 27.7… nano-dollars
    expect(mtd.usd).toBeGreaterThan(0);
  });
});
