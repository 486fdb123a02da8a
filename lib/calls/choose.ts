import type { Cooldown, RouteStrategy } from '../../tables/routes';

/**
 * The order a route tries its targets in, pure (the random source is a parameter, so a test can seed
 * it). Targets cooling down are left out; the rest are, under `priority`, in the route's order and,
 * under `weighted`, drawn one after another by weight among those not drawn yet, so the first is each
 * target in proportion to its weight and a fallback goes to another by the same rule.
 */

export interface Candidate<T> {
  target: T;
  id: string;
  weight: number;
}

export const isCooling = (cooldown: Cooldown | undefined, now: number): cooldown is Cooldown => cooldown !== undefined && cooldown.until > now;

export function orderTargets<T>(
  strategy: RouteStrategy,
  candidates: Candidate<T>[],
  cooldowns: Record<string, Cooldown>,
  now: number,
  random: () => number = Math.random,
): T[] {
  const ready = candidates.filter((c) => !isCooling(cooldowns[c.id], now));
  if (strategy === 'priority') return ready.map((c) => c.target);
  const order: T[] = [];
  const left = [...ready];
  while (left.length > 0) {
    const total = left.reduce((sum, c) => sum + c.weight, 0);
    let draw = random() * total;
    let i = 0;
    while (i < left.length - 1 && draw >= (left[i] as Candidate<T>).weight) draw -= (left[i++] as Candidate<T>).weight;
    order.push((left.splice(i, 1)[0] as Candidate<T>).target);
  }
  return order;
}
