/**
 * Platform calls of one reconciliation pass: spaced to at most `perSecond` (SageMaker's control-plane
 * quotas are a few calls a second per account, shared with everything else in it) and counted by
 * operation, so a pass can report what it cost.
 */
export class Pacer {
  readonly calls: Record<string, number> = {};
  private nextSlot = 0;

  constructor(private readonly perSecond: number) {}

  async call<T>(operation: string, run: () => Promise<T>, count = 1): Promise<T> {
    const now = Date.now();
    const slot = Math.max(now, this.nextSlot);
    this.nextSlot = slot + (1000 / this.perSecond) * count;
    if (slot > now) await new Promise((resolve) => setTimeout(resolve, slot - now));
    this.calls[operation] = (this.calls[operation] ?? 0) + count;
    return run();
  }

  /** Calls a step made beyond the one it was paced as (GetMetricData pages, DescribeEndpointConfig). */
  add(operation: string, extra: number): void {
    if (extra > 0) this.calls[operation] = (this.calls[operation] ?? 0) + extra;
  }

  get total(): number {
    return Object.values(this.calls).reduce((a, b) => a + b, 0);
  }
}
