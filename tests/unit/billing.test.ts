import { billingAfter, instanceSecondsThisMonth, monthToDate, type Billed } from '../../lib/resources/billing';

const at = (iso: string) => new Date(iso);
const open = (since: string, count = 1, closed = 0, month = since.slice(0, 7)): Billed => ({
  billing_month: month,
  billed_instance_seconds: closed,
  billable_since: since,
  instance_count: count,
});

describe('billable time of a dedicated endpoint', () => {
  test('an open segment counts its seconds times the instance count, on top of the month so far', () => {
    expect(instanceSecondsThisMonth(open('2025-06-10T10:00:00.000Z', 2, 100), at('2025-06-10T11:00:00.000Z'))).toBe(100 + 3600 * 2);
  });

  test('a segment open since last month counts only from the first of this month, and last month counts nothing', () => {
    const r = open('2025-05-31T23:00:00.000Z', 1, 5000, '2025-05');
    expect(instanceSecondsThisMonth(r, at('2025-06-01T01:00:00.000Z'))).toBe(3600);
  });

  test('a closed month that is not the current one counts zero', () => {
    expect(
      instanceSecondsThisMonth(
        { billing_month: '2025-05', billed_instance_seconds: 9999, billable_since: null, instance_count: 1 },
        at('2025-06-02T00:00:00Z'),
      ),
    ).toBe(0);
  });

  test('stopping closes the segment at that moment; nothing accrues afterwards', () => {
    const next = billingAfter(open('2025-06-10T10:00:00.000Z'), { billable: false, instanceCount: 1 }, at('2025-06-10T10:30:00.000Z'));
    expect(next).toEqual({ billing_month: '2025-06', billed_instance_seconds: 1800, billable_since: null });
    expect(instanceSecondsThisMonth({ ...next!, instance_count: 1 }, at('2025-06-20T00:00:00.000Z'))).toBe(1800);
  });

  test('starting opens a segment; a change of instance count closes the old one at the old count', () => {
    const stopped = { billing_month: '2025-06', billed_instance_seconds: 60, billable_since: null, instance_count: 1 };
    expect(billingAfter(stopped, { billable: true, instanceCount: 1 }, at('2025-06-10T00:00:00.000Z'))).toEqual({
      billing_month: '2025-06',
      billed_instance_seconds: 60,
      billable_since: '2025-06-10T00:00:00.000Z',
    });
    const scaled = billingAfter(open('2025-06-10T00:00:00.000Z', 1), { billable: true, instanceCount: 3 }, at('2025-06-10T00:10:00.000Z'));
    expect(scaled).toEqual({ billing_month: '2025-06', billed_instance_seconds: 600, billable_since: '2025-06-10T00:10:00.000Z' });
  });

  test('a change that keeps billability and count changes nothing', () => {
    expect(billingAfter(open('2025-06-10T00:00:00.000Z', 2), { billable: true, instanceCount: 2 }, at('2025-06-11T00:00:00Z'))).toBeUndefined();
    const idle = { billing_month: '2025-06', billed_instance_seconds: 0, billable_since: null, instance_count: 1 };
    expect(billingAfter(idle, { billable: false, instanceCount: 5 }, at('2025-06-11T00:00:00Z'))).toBeUndefined();
  });

  test("the month's cost is the billable instance-hours times the price of one instance", () => {
    expect(monthToDate(open('2025-06-10T00:00:00.000Z', 2), 1.5, at('2025-06-10T03:00:00.000Z'))).toEqual({ instanceHours: 6, usd: 9 });
  });
});
