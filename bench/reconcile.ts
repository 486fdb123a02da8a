/**
 * Section 10, the cost of one reconciliation pass: platform calls (counted by the emulator, so calls
 * made inside the platform adapter, such as DescribeEndpointConfig, are included) and DynamoDB
 * capacity (reported by DynamoDB Local and computed from item sizes, bench/capacity.ts), per pass and
 * per tracked resource, for fleets of two sizes.
 *
 * The fleet: `size` dedicated resources deployed through the deploy handler (half with a 60-minute
 * idle timeout, a quarter with a budget that is not reached), plus endpoints that are not the
 * service's (a tenth of the fleet) and a few orphans. Passes, in order:
 *
 *   first      right after the deploys: every resource is Creating in the table, InService on the
 *              platform, so every one is described once
 *   steady     nothing changed since: the normal pass
 *   idle due   60 minutes later (the pass's `now`): the idle-timeout half is checked in CloudWatch;
 *              nine in ten had traffic (one write each), one in ten is stopped
 *   settled    the stops' bookkeeping finishes
 *   steady     nothing changed again
 *
 * Platform calls are not paced here (RECONCILE_PLATFORM_CALLS_PER_SECOND is high), so a pass's
 * duration is its work; at the default pace of 10 calls a second, the pace alone adds calls / 10 s.
 */
import { randomUUID } from 'node:crypto';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { computeCapacity } from './capacity';
import { fmtNum, markdownTable, type Row, type SectionResult } from './harness';
import { expectOk, service } from './service';

const PACKAGE = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';

interface PassCost {
  fleet: number;
  pass: string;
  ms: number;
  calls: Record<string, number>;
  platformCalls: number;
  dbCalls: number;
  reportedRcu: number;
  reportedWcu: number;
  rcu: number;
  wcu: number;
  /** Per DynamoDB command: calls and computed units. */
  db: string;
  stops: number;
  changes: number;
  orphans: number;
}

async function emulatorCalls(url: string): Promise<Record<string, number>> {
  return ((await (await fetch(`${url}/_emulator/state`)).json()) as { calls: Record<string, number> }).calls;
}

function diff(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([op, n]) => [op, n - (before[op] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

export async function reconcileCost(options: { sizes: number[] }): Promise<SectionResult> {
  const svc = await service();
  const url = svc.runtime.emulatorUrl;
  const [{ reconcile }, { handler: deploy }] = await Promise.all([import('../lib/reconcile/pass'), import('../functions/deploy/dedicated')]);
  const { token: adminToken } = await svc.users.makeUser('admin');
  const runtime = new SageMakerRuntimeClient({
    region: 'us-east-1',
    endpoint: url,
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    maxAttempts: 1,
  });

  const costs: PassCost[] = [];
  try {
    for (const size of options.sizes) {
      process.stderr.write(`  fleet of ${size}: deploying…\n`);
      const tag = randomUUID().slice(0, 6);
      const deployed: { name: string; idle: boolean }[] = [];
      let lastCreated = 0;
      for (let i = 0; i < size; i++) {
        const name = `rc-${tag}-${i}`;
        const idle = i % 2 === 0;
        expectOk(
          'dedicated deploy',
          await svc.invoke.call(deploy as never, {
            method: 'POST',
            path: '/api/deploy/dedicated',
            token: adminToken,
            body: {
              endpointName: name,
              instanceType: 'ml.g5.xlarge',
              modelPackageArn: PACKAGE,
              dryRun: false,
              ...(idle ? { idleTimeoutMinutes: 60 } : {}),
              ...(i % 4 === 1 ? { monthlyBudgetUsd: 1000 } : {}),
            },
          }),
        );
        lastCreated = Date.now();
        deployed.push({ name, idle });
      }
      for (let i = 0; i < Math.max(1, Math.round(size / 10)); i++) {
        await fetch(`${url}/_emulator/endpoints`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `rc-${tag}-foreign-${i}`, tags: { team: 'someone-else' } }),
        });
      }
      for (let i = 0; i < 3; i++) {
        await fetch(`${url}/_emulator/endpoints`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `rc-${tag}-orphan-${i}`, tags: { 'managed-by': 'model-ops', 'model-ops:stage': svc.runtime.stage } }),
        });
      }
      // Traffic after every deploy (so inside each idle window), on nine in ten of the idle-timeout half.
      await new Promise((r) => setTimeout(r, 1500));
      const idleOnes = deployed.filter((d) => d.idle);
      for (const [k, d] of idleOnes.entries()) {
        if (k % 10 === 9) continue;
        await runtime.send(
          new InvokeEndpointCommand({
            EndpointName: d.name,
            ContentType: 'application/json',
            Body: new TextEncoder().encode(JSON.stringify({ messages: [{ role: 'user', content: 'ping' }] })),
          }),
        );
      }

      const dueAt = new Date(lastCreated + 60 * 60_000 + 1000);
      const passes: [string, Date | undefined][] = [
        ['first', undefined],
        ['steady', undefined],
        ['idle due', dueAt],
        ['settled', new Date(dueAt.getTime() + 1000)],
        ['steady', new Date(dueAt.getTime() + 2000)],
      ];
      for (const [label, now] of passes) {
        const before = await emulatorCalls(url);
        svc.meter.capacity = true;
        svc.meter.record = true;
        const started = performance.now();
        let measured;
        try {
          measured = await svc.meter.measure(() => reconcile({ now }));
        } finally {
          svc.meter.capacity = false;
          svc.meter.record = false;
        }
        const ms = performance.now() - started;
        const calls = diff(await emulatorCalls(url), before);
        const computed = await computeCapacity(svc, measured.meter.records);
        const commands = [...new Set(measured.meter.records.map((r) => r.command))].sort();
        const perCommand: string[] = [];
        for (const command of commands) {
          const records = measured.meter.records.filter((r) => r.command === command);
          const units = await computeCapacity(svc, records);
          perCommand.push(`${command.replace(/Command$/, '')} ×${records.length}: ${fmtNum(units.rcu + units.wcu, 1)}`);
        }
        const report = measured.result;
        if (report.skipped) throw new Error(`a pass was skipped: ${report.skipped}`);
        costs.push({
          fleet: size,
          pass: label,
          ms,
          calls,
          platformCalls: Object.values(calls).reduce((a, b) => a + b, 0),
          dbCalls: measured.meter.calls,
          reportedRcu: measured.meter.reportedRcu,
          reportedWcu: measured.meter.reportedWcu,
          rcu: computed.rcu,
          wcu: computed.wcu,
          db: perCommand.join(', '),
          stops: report.stops.length,
          changes: report.changes,
          orphans: report.orphansFound.length,
        });
        process.stderr.write(`  ${size} ${label}: ${JSON.stringify(calls)}; ${perCommand.join(', ')}\n`);
      }
      // The next fleet is measured on its own: this one leaves tracking (and the platform).
      await clearFleet(url);
    }
  } finally {
    runtime.destroy();
  }
  return render(costs);
}

/** Removes every dedicated resource and orphan record, and the emulator's endpoints, so the next fleet starts empty. */
async function clearFleet(url: string): Promise<void> {
  await fetch(`${url}/_emulator/reset`, { method: 'POST' });
  const [{ listResources, removeResource }, { allOrphans, removeOrphan }] = await Promise.all([
    import('../tables/resources'),
    import('../tables/orphans'),
  ]);
  for (;;) {
    const { resources } = await listResources({ type: 'dedicated', limit: 100 });
    if (resources.length === 0) break;
    for (const r of resources) await removeResource(r);
  }
  for (const o of await allOrphans()) await removeOrphan(o.endpoint_name);
}

const fmtCalls = (calls: Record<string, number>) =>
  Object.entries(calls)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, n]) => `${op} ${n}`)
    .join(', ') || 'none';

function render(costs: PassCost[]): SectionResult {
  const rows: Row[] = [];
  // The last steady pass of each fleet: after the stops' bookkeeping, the pass that repeats all day.
  const steady = [...new Map(costs.filter((x) => x.pass === 'steady').map((x) => [x.fleet, x])).values()];
  for (const c of steady) {
    rows.push({
      section: '10 reconcile',
      measure: `steady pass, ${c.fleet} tracked: platform calls`,
      value: `${c.platformCalls} (${fmtNum(c.platformCalls / c.fleet, 3)} per resource)`,
      target: 'independent of fleet size, beyond one listing call per 100 endpoints',
      status: c.platformCalls <= Math.ceil((c.fleet * 1.1 + 3) / 100) + 1 ? 'met' : 'not met',
    });
    rows.push({
      section: '10 reconcile',
      measure: `steady pass, ${c.fleet} tracked: DynamoDB RCU / WCU`,
      value: `${fmtNum(c.rcu, 1)} / ${fmtNum(c.wcu, 1)} (${fmtNum(c.rcu / c.fleet, 3)} / ${fmtNum(c.wcu / c.fleet, 3)} per resource)`,
      status: 'info',
    });
  }
  const table = markdownTable(
    [
      'Fleet',
      'Pass',
      'Platform calls',
      'by operation',
      'per resource',
      'DynamoDB calls (computed units)',
      'RCU computed / reported',
      'WCU computed / reported',
      'RCU per resource',
      'WCU per resource',
      'Stops',
      'Changes',
      'Orphans found',
      'ms',
    ],
    costs.map((c) => [
      c.fleet,
      c.pass,
      c.platformCalls,
      fmtCalls(c.calls),
      fmtNum(c.platformCalls / c.fleet, 3),
      c.db,
      `${fmtNum(c.rcu, 1)} / ${fmtNum(c.reportedRcu, 1)}`,
      `${fmtNum(c.wcu, 1)} / ${fmtNum(c.reportedWcu, 1)}`,
      fmtNum(c.rcu / c.fleet, 3),
      fmtNum(c.wcu / c.fleet, 3),
      c.stops,
      c.changes,
      c.orphans,
      Math.round(c.ms),
    ]),
  );
  const markdown = [
    "One reconciliation pass (lib/reconcile/pass.ts) over fleets of tracked dedicated resources, on the emulator and DynamoDB Local. The fleet: half the resources with a 60-minute idle timeout, a quarter with a budget that is not reached, plus a tenth as many endpoints that are not this service's and three orphans. Platform calls are counted by the emulator (calls made inside the adapter included); capacity is computed from item sizes by DynamoDB's rules (bench/capacity.ts) and also shown as DynamoDB Local reports it.",
    '',
    table,
    '',
    "- **steady** is what a pass costs almost always: one ListEndpoints per 100 endpoints on the platform and nothing else, whatever the fleet; on the table the GSI2 page of tracked resources (a resource item is about 1.2 KB, so 200 of them are 30 eventually consistent read units), the name guards of the untracked endpoints not yet classified (the orphans here: foreign endpoints are remembered per container), the orphan records, and the reconciler's state item (lease and cursor: 2 write units). A pass every 5 minutes over 200 resources is about 9,000 read and 600 write units a day.",
    "- **first**: right after the deploys every resource is Creating in the table and InService on the platform, so each is described and written once (a resource write is 6 units: the item and its two GSI entries); every untracked endpoint is classified once with ListTags. In this run the deploys warmed the platform adapter's configuration cache in the same process, so DescribeEndpointConfig shows only for the orphans; a cold reconciler Lambda adds one per configuration (about 430 calls for 200 new resources, 43 s at the default pace of 10 calls a second; the pass stops starting work 15 s before its 120 s timeout and the next pass goes on).",
    '- **idle due**: the idle-timeout half reached its timeout: one GetMetricData for all of them (up to 500 endpoints a call), one write per endpoint that had traffic (it is not asked about again until its timeout could have run out since), and per stop a Describe, a claim, a DeleteEndpoint and an audit entry; the next pass (**settled**) describes each stopped endpoint once more to finish its bookkeeping.',
    "- Platform calls are paced, not bunched: a pass never makes more than RECONCILE_PLATFORM_CALLS_PER_SECOND (10) a second, so SageMaker's control-plane quotas stay free for deploys and the console.",
  ].join('\n');
  return { rows, markdown };
}
