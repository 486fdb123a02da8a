/**
 * Section 17, routes (issue 32): what a call through a route costs in DynamoDB beside a direct call of
 * the same model, on the happy path, and what a fallback adds.
 *
 *   - Two managed resources deployed through their handler; a priority route over them created through
 *     POST /api/routes; keys with and without a budget.
 *   - Direct: POST /v1/chat/completions naming the first resource. Route: the same call naming the
 *     route. Both after one unmeasured call (a warm container: it knows the key, the name, the route,
 *     whose definition it keeps for ROUTE_DEFINITION_TTL_SECONDS). Route, read again: the same with
 *     that time at 0, as a call makes it once in that time per function instance (the route item and
 *     the name's guards are read beside the targets).
 *   - Fallback: a fresh route of the same two targets, warmed, then called while the emulator throttles
 *     the first target's model (`POST /_emulator/faults` `{target: "*", model, fault: "429"}`, as the
 *     README shows): the first target is asked and refuses, the second answers.
 *
 * Each figure is one call metered as in section 3 (RCU and WCU computed from item sizes), the rounds its
 * sequential DynamoDB round trips (bench/resolution.ts roundsOf), the median of `repeats`.
 */
import { randomUUID } from 'node:crypto';
import { metered, type EndpointCapacity } from './capacity';
import { check, fmtNum, loadAverage, markdownTable, type CallRecord, type Row, type SectionResult } from './harness';
import { describeRounds, roundsOf } from './resolution';
import { expectOk, invoke, service, sharedWorld, type Service } from './service';

export interface RoutesOptions {
  repeats: number;
}

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'TransactGetItemsCommand']);
const FIRST = 'anthropic.claude-3-haiku-20240307-v1:0';
const SECOND = 'amazon.nova-lite-v1:0';

interface Measured {
  label: string;
  capacity: EndpointCapacity;
  rounds: CallRecord[][];
  status: number;
  attempts: string;
}

async function emulatorFault(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${process.env.EMULATOR_URL}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { id: string }).id;
}

export async function routes(options: RoutesOptions): Promise<SectionResult> {
  const svc: Service = await service();
  const world = await sharedWorld();
  const [{ handler: createKey }, { handler: completions }, { handler: createRoute }, { call }, resources, { config }] = await Promise.all([
    import('../functions/keys/create'),
    import('../functions/gateway/completions'),
    import('../functions/routes/create'),
    import('../tests/helpers/invoke'),
    import('../tables/resources'),
    import('../core/config'),
  ]);
  type Handler = Parameters<typeof call>[0];
  const loadBefore = loadAverage();

  const deploy = async (modelId: string) => {
    const endpointName = `bench-route-${randomUUID().slice(0, 8)}`;
    expectOk(
      'deploy',
      await invoke(svc, 'deployManaged', {
        method: 'POST',
        path: '/api/deploy/managed',
        token: world.adminToken,
        body: { modelId, endpointName, dryRun: false },
      }),
    );
    const id = await resources.getNameHolder('managed', endpointName);
    if (!id) throw new Error(`the deployed resource ${endpointName} is not in the table`);
    return { id, endpointName };
  };
  const newKey = async (body: Record<string, unknown>) => {
    const res = await call(createKey as Handler, {
      method: 'POST',
      token: world.token,
      body: { name: `bench ${randomUUID().slice(0, 6)}`, ...body },
    });
    if (res.status !== 201) throw new Error(`key create answered ${res.status}`);
    return res.body.key as string;
  };
  const newRoute = async (targets: { id: string }[]) => {
    const res = await call(createRoute as Handler, {
      method: 'POST',
      token: world.adminToken,
      body: { name: `bench-rt-${randomUUID().slice(0, 8)}`, strategy: 'priority', targets: targets.map((t) => ({ resource_id: t.id })) },
    });
    if (res.status !== 201) throw new Error(`route create answered ${res.status}: ${res.raw}`);
    return res.body.route.name as string;
  };
  const complete = async (key: string, model: string) => {
    const res = await call(completions as Handler, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: { model, messages: [{ role: 'user', content: 'Benchmark: what is the capital of France?' }], max_tokens: 64 },
    });
    return { status: res.status, attempts: res.headers['x-model-ops-attempts'] ?? '?' };
  };

  const [first, second] = [await deploy(FIRST), await deploy(SECOND)];
  const keys = { 'no budget': await newKey({}), budget: await newKey({ monthly_budget_usd: 1000 }) };
  const results: Measured[] = [];
  /** `prepare` warms the call and returns the model to name; `done` undoes what it set. */
  const measure = async (label: string, key: string, prepare: () => Promise<string>, done?: () => Promise<void>) => {
    const per: Measured[] = [];
    for (let k = 0; k < options.repeats; k++) {
      const model = await prepare();
      let answer = { status: 0, attempts: '?' };
      try {
        const { capacity, records } = await metered(svc, label, async () => {
          answer = await complete(key, model);
        });
        per.push({ label, capacity, rounds: roundsOf(records), ...answer });
      } finally {
        await done?.();
      }
    }
    per.sort((a, b) => a.capacity.rcu + a.capacity.wcu - (b.capacity.rcu + b.capacity.wcu));
    results.push(per[Math.floor(per.length / 2)] as Measured);
  };
  const warmed = async (key: string, model: string) => {
    await complete(key, model);
    return model;
  };

  for (const [which, key] of Object.entries(keys)) {
    const route = await newRoute([first, second]);
    await measure(`direct, key with ${which}`, key, () => warmed(key, first.endpointName));
    await measure(`route, key with ${which}`, key, () => warmed(key, route));
    const ttl = config.routes.definitionSeconds;
    await measure(
      `route, read again, key with ${which}`,
      key,
      async () => {
        await warmed(key, route);
        config.routes.definitionSeconds = 0;
        return route;
      },
      async () => {
        config.routes.definitionSeconds = ttl;
      },
    );
    // A fresh route each time (its first target's cooldown would spare the next call the refusal), warmed, then faulted.
    let fault = '';
    await measure(
      `fallback, key with ${which}`,
      key,
      async () => {
        const fresh = await warmed(key, await newRoute([first, second]));
        fault = await emulatorFault({ target: '*', model: FIRST, fault: '429' });
        return fresh;
      },
      async () => {
        await fetch(`${process.env.EMULATOR_URL}/_emulator/faults/${fault}`, { method: 'DELETE' });
      },
    );
  }
  return report(results, options, loadBefore);
}

function report(results: Measured[], options: RoutesOptions, loadBefore: string): SectionResult {
  const S = '17 routes';
  const rows: Row[] = [];
  const find = (label: string) => results.find((r) => r.label === label);
  for (const which of ['no budget', 'budget']) {
    const direct = find(`direct, key with ${which}`);
    const route = find(`route, key with ${which}`);
    const again = find(`route, read again, key with ${which}`);
    const fallback = find(`fallback, key with ${which}`);
    if (!direct || !route) continue;
    const same = direct.capacity.rounds === route.capacity.rounds && direct.capacity.calls === route.capacity.calls;
    rows.push({
      section: S,
      measure: `route vs direct call, key with ${which}`,
      value: `RCU ${fmtNum(direct.capacity.rcu)} → ${fmtNum(route.capacity.rcu)}, WCU ${fmtNum(direct.capacity.wcu)} → ${fmtNum(route.capacity.wcu)}, rounds ${direct.capacity.rounds} → ${route.capacity.rounds}`,
      target: 'the same round trips and calls, no more RCU',
      status: check(same && route.capacity.rcu <= direct.capacity.rcu && direct.status === 200 && route.status === 200),
    });
    if (again) {
      rows.push({
        section: S,
        measure: `route, its definition read again (once per ROUTE_DEFINITION_TTL_SECONDS per instance), key with ${which}`,
        value: `RCU ${fmtNum(again.capacity.rcu)}, WCU ${fmtNum(again.capacity.wcu)}, rounds ${again.capacity.rounds}: ${describeRounds(again.rounds)}`,
        target: 'the same round trips as a direct call',
        status: check(again.capacity.rounds === direct.capacity.rounds && again.status === 200),
      });
    }
    if (fallback) {
      rows.push({
        section: S,
        measure: `a fallback, key with ${which}`,
        value: `${fallback.attempts} attempts; RCU ${fmtNum(fallback.capacity.rcu)}, WCU ${fmtNum(fallback.capacity.wcu)}, rounds ${fallback.capacity.rounds}: ${describeRounds(fallback.rounds)}`,
        target: 'one more platform call; no read after the first round',
        status: check(
          fallback.status === 200 &&
            fallback.attempts === '2' &&
            fallback.rounds.slice(1).every((round) => round.every((r) => !READS.has(r.command))),
        ),
      });
    }
  }
  const markdown = [
    `One POST /v1/chat/completions (managed models through the completions handler, in process; the emulator answers at once), naming a resource directly or a priority route over it and a second resource, with DynamoDB metered as in section 3. Each row: the median of ${options.repeats} calls after one unmeasured call (a warm container, which keeps a route's definition for ROUTE_DEFINITION_TTL_SECONDS, 5 s by default, and reads only its targets' items, where the route's cooldowns are). The "read again" rows: the call that reads the definition again, as one does once in that time per function instance. The fallback rows: a route warmed, then called while the emulator throttles its first target's model, so the first attempt is refused and the second target answers. Load average ${loadBefore} before the run.`,
    '',
    markdownTable(
      ['Call', 'RCU', 'WCU', 'Calls', 'Round trips', 'In order', 'Attempts', 'Status'],
      results.map((r) => [
        r.label,
        fmtNum(r.capacity.rcu),
        fmtNum(r.capacity.wcu),
        r.capacity.calls,
        r.capacity.rounds,
        describeRounds(r.rounds),
        r.attempts,
        r.status,
      ]),
    ),
  ].join('\n');
  return { rows, markdown };
}
