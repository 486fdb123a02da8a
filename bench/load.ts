/**
 * Section 6, under load through serverless-offline: the service started with startOffline on free
 * loopback ports, reading the table this run seeded (model-ops-bench), then autocannon (programmatic)
 * with 32 connections for a fixed duration against GET /api/auth/validate and POST /api/chat/thread.
 * Each chat connection is its own user, conversation and thread, as 32 people chatting would be; the
 * counters every turn updates (service-wide usage, the model's totals, the resource's chat counters)
 * are shared, as they are in production.
 *
 * Memory: VmRSS of the serverless-offline process and all its descendants, after a short warm-up
 * (every handler loaded), sampled every second during the run, and at the end.
 */
import { readFileSync } from 'node:fs';
import autocannon, { type Result } from 'autocannon';
import {
  check,
  fmtMb,
  fmtMs,
  markdownTable,
  onCleanup,
  processRss,
  processTree,
  summarize,
  treeRss,
  treeRssByProcess,
  treeThreads,
  type Row,
  type SectionResult,
  type Summary,
} from './harness';
import { expectOk, invoke, service, type Service } from './service';

export interface LoadOptions {
  quick: boolean;
  seconds: number;
  warmupRequests: number;
  connections: number;
}

interface Run {
  label: string;
  result: Result;
  /** The tree: serverless-offline and its descendants (its esbuild service holds the build contexts). */
  rssBefore: number;
  rssAfter: number;
  rssMax: number;
  samples: number[];
  /** The serverless-offline node process alone: the server and its handler worker threads. */
  serverBefore: number;
  serverAfter: number;
  serverMax: number;
  serverSamples: number[];
  processes: number;
  threads: number;
}

export async function load(options: LoadOptions): Promise<SectionResult> {
  const svc = await service();
  const { freePort, startOffline } = await import('../local/runtime');

  process.stderr.write(`  seeding ${options.connections} users, each with a conversation and a thread…\n`);
  const resource = await svc.fixtures.managedResource();
  const chatters: { token: string; body: string }[] = [];
  for (let i = 0; i < options.connections; i++) {
    const { token } = await svc.users.makeUser('user');
    const conversationId = await svc.fixtures.newConversation(token, resource, `Load ${i}`);
    const first = expectOk(
      'first turn',
      await invoke(svc, 'threadPost', {
        method: 'POST',
        path: '/api/chat/thread',
        token,
        body: { message: 'Hello', conversationId, resourceId: resource.id },
      }),
    );
    const body = JSON.stringify({
      message: 'Under load: what is the capital of France?',
      conversationId,
      resourceId: resource.id,
      threadId: first.body.threadId,
    });
    chatters.push({ token, body });
  }

  const burst = await inProcessBurst(svc, chatters, options.quick ? 2 : 5);

  process.stderr.write('  starting serverless-offline (it bundles every function first)…\n');
  // Until startOffline returns, the child is not ours to stop through its handle: if the run is
  // interrupted meanwhile, stop the serverless-offline child of this process (by pid, with its group).
  const unregisterStarting = onCleanup('serverless-offline (starting)', () => {
    for (const p of processTree(process.pid)) {
      if (p === process.pid) continue;
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
        if (cmd.includes('serverless.js') && cmd.includes('offline')) process.kill(-p, 'SIGTERM');
      } catch {
        // gone, or not a group leader
      }
    }
  });
  const offline = await startOffline({
    port: await freePort(),
    lambdaPort: await freePort(),
    stage: svc.runtime.stage,
    env: svc.runtime.env,
  }).finally(unregisterStarting);
  const unregister = onCleanup('serverless-offline', () => offline.stop());
  const pid = offline.process.pid as number;
  const rssStart = treeRss(pid);
  const startBreakdown = treeRssByProcess(pid);
  try {
    const validateRequest = { url: `${offline.url}/api/auth/validate`, method: 'GET', headers: { authorization: `Bearer ${chatters[0]!.token}` } };
    let next = 0;
    const chatRequest = {
      url: `${offline.url}/api/chat/thread`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Each connection is one chatter: their token, their thread.
      setupClient: (client: { setHeadersAndBody(h: Record<string, string>, b: string): void }) => {
        const c = chatters[next++ % chatters.length]!;
        client.setHeadersAndBody({ 'content-type': 'application/json', authorization: `Bearer ${c.token}` }, c.body);
      },
    };
    // Sanity through HTTP before anything is timed.
    const probe = await fetch(validateRequest.url, { headers: validateRequest.headers });
    if (probe.status !== 200) throw new Error(`validate through serverless-offline answered ${probe.status}: ${await probe.text()}`);

    const runs: Run[] = [];
    for (const [label, request] of [
      ['validate (GET /api/auth/validate)', validateRequest],
      ['chat turn (POST /api/chat/thread)', chatRequest],
    ] as const) {
      process.stderr.write(
        `  ${label}: warm-up (${options.warmupRequests} requests), then ${options.seconds} s with ${options.connections} connections…\n`,
      );
      // By count, not time: serverless-offline starts a worker per concurrent invocation, and each
      // worker's first request is a cold start; the measured run starts once all have answered.
      await cannon({ ...request, connections: options.connections, amount: options.warmupRequests });
      const rssBefore = treeRss(pid);
      const serverBefore = processRss(pid);
      const samples: number[] = [];
      const serverSamples: number[] = [];
      const sampler = setInterval(() => {
        samples.push(treeRss(pid));
        serverSamples.push(processRss(pid));
      }, 1000);
      let result: Result;
      try {
        result = await cannon({ ...request, connections: options.connections, duration: options.seconds });
      } finally {
        clearInterval(sampler);
      }
      const rssAfter = treeRss(pid);
      const serverAfter = processRss(pid);
      const { processes, threads } = treeThreads(pid);
      runs.push({
        label,
        result,
        rssBefore,
        rssAfter,
        rssMax: Math.max(rssBefore, rssAfter, ...samples),
        samples,
        serverBefore,
        serverAfter,
        serverMax: Math.max(serverBefore, serverAfter, ...serverSamples),
        serverSamples,
        processes,
        threads,
      });
    }
    return report(runs, burst, rssStart, startBreakdown, options);
  } finally {
    await offline.stop();
    unregister();
  }
}

interface Burst {
  rounds: number;
  turns: Summary;
  txPerTurn: number;
  cancellations: Record<string, number>;
  failed: number;
}

/**
 * The same 32 chatters, in process: `rounds` times, all 32 turns at once. Shows what serverless-
 * offline cannot: how many TransactWriteItems attempts a turn needs when 32 turns update the shared
 * counters together (each retry is a cancelled transaction, `TransactionConflict`).
 */
async function inProcessBurst(svc: Service, chatters: { token: string; body: string }[], rounds: number): Promise<Burst> {
  process.stderr.write(`  in process: ${rounds} bursts of ${chatters.length} concurrent chat turns…\n`);
  const times: number[] = [];
  let failed = 0;
  svc.meter.record = true;
  try {
    const { meter } = await svc.meter.measure(async () => {
      for (let r = 0; r < rounds; r++) {
        await Promise.all(
          chatters.map(async (c) => {
            let ms = 0;
            const res = await invoke(
              svc,
              'threadPost',
              { method: 'POST', path: '/api/chat/thread', token: c.token, body: JSON.parse(c.body) },
              async (work) => {
                const t = performance.now();
                const out = await work();
                ms = performance.now() - t;
                return out;
              },
            );
            if (res.status === 200) times.push(ms);
            else failed++;
          }),
        );
      }
    });
    const tx = meter.records.filter((r) => r.command === 'TransactWriteItemsCommand');
    const cancellations: Record<string, number> = {};
    for (const r of tx) if (r.error) cancellations[r.error] = (cancellations[r.error] ?? 0) + 1;
    return { rounds, turns: summarize(times), txPerTurn: tx.length / Math.max(1, rounds * chatters.length), cancellations, failed };
  } finally {
    svc.meter.record = false;
  }
}

function cannon(options: Parameters<typeof autocannon>[0]): Promise<Result> {
  const instance = autocannon({ timeout: 30, ...options });
  const stop = onCleanup('autocannon', () => instance.stop());
  return Promise.resolve(instance).finally(stop);
}

/** Growth of the memory over the second half of the run, relative to the first half's mean. */
function trend(samples: number[]): number {
  if (samples.length < 4) return 0;
  const half = Math.floor(samples.length / 2);
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  return mean(samples.slice(half)) / mean(samples.slice(0, half)) - 1;
}

function report(runs: Run[], burst: Burst, rssStart: number, startBreakdown: { name: string; rss: number }[], options: LoadOptions): SectionResult {
  const breakdown = startBreakdown.map((p) => `${p.name} ${fmtMb(p.rss)}`).join(', ');
  const rows: Row[] = [];
  const cancelled =
    Object.entries(burst.cancellations)
      .map(([k, v]) => `${k} ×${v}`)
      .join(', ') || 'none';
  rows.push({
    section: '6 load',
    measure: `in process: ${options.connections} concurrent chat turns (×${burst.rounds})`,
    value: `median ${fmtMs(burst.turns.median)}, p99 ${fmtMs(burst.turns.p99)}; TransactWriteItems attempts per turn ${burst.txPerTurn.toFixed(2)} (failed attempts: ${cancelled}); failed turns ${burst.failed}`,
    target: 'no failed turns',
    status: check(burst.failed === 0),
  });
  rows.push({
    section: '6 load',
    measure: 'serverless-offline RSS at start (no request yet)',
    value: `${fmtMb(rssStart)} (${breakdown})`,
    status: 'info',
  });
  const md: (string | number)[][] = [];
  for (const r of runs) {
    const failures = r.result.non2xx + r.result.errors + r.result.timeouts;
    const completed = r.result.requests.total;
    const growth = trend(r.serverSamples);
    const codes = Object.entries(r.result.statusCodeStats ?? {})
      .map(([code, s]) => `${code}×${s.count}`)
      .join(' ');
    rows.push({
      section: '6 load',
      measure: r.label,
      value: `${r.result.requests.average.toFixed(1)} req/s (${completed} completed), p50 ${fmtMs(r.result.latency.p50)}, p99 ${fmtMs(r.result.latency.p99)}, non-2xx ${r.result.non2xx}, errors ${r.result.errors + r.result.timeouts}`,
      target: 'no errors',
      status: check(failures === 0 && completed > 0),
    });
    rows.push({
      section: '6 load',
      measure: `${r.label}: serverless-offline RSS`,
      value: `server process ${fmtMb(r.serverBefore)} → ${fmtMb(r.serverAfter)} (max ${fmtMb(r.serverMax)}; 2nd half vs 1st half ${(growth * 100).toFixed(1)}%; ${r.threads} threads); with its esbuild child ${fmtMb(r.rssBefore)} → ${fmtMb(r.rssAfter)}`,
      target: 'not growing (≤ 10% half over half)',
      status: check(growth <= 0.1),
    });
    md.push([
      r.label,
      options.connections,
      `${Math.round(r.result.duration)} s`,
      `${r.result.requests.average.toFixed(1)} (${completed})`,
      fmtMs(r.result.latency.p50),
      fmtMs(r.result.latency.p99),
      `${r.result.non2xx} (${codes || 'none'})`,
      r.result.errors + r.result.timeouts,
      fmtMb(r.serverBefore),
      fmtMb(r.serverAfter),
      fmtMb(r.serverMax),
      `${(growth * 100).toFixed(1)}%`,
      `${fmtMb(r.rssBefore)} → ${fmtMb(r.rssAfter)}`,
      `${r.processes} / ${r.threads}`,
    ]);
  }
  const markdown = [
    `serverless-offline (local/runtime.ts startOffline, free loopback ports) over this run's DynamoDB Local table and the emulator (delays 0); autocannon, ${options.connections} connections, a warm-up of ${options.warmupRequests} requests (every worker started) then ${options.seconds} s measured per endpoint (\`--load-seconds 60\` for the 60-second run). Chat: each connection is its own user, conversation and thread. Server RSS: VmRSS (/proc) of the serverless-offline node process (the HTTP server and the handlers' worker threads), before the measured run (after the warm-up), sampled every second, and after; "trend" is the mean of the second half of the samples over the first half. Tree RSS adds its descendants, chiefly the esbuild service that serverless-esbuild keeps running with every function's build context.`,
    '',
    `In process, the same ${options.connections} chatters sent ${burst.rounds} bursts of ${options.connections} simultaneous turns: turn median ${fmtMs(burst.turns.median)}, p99 ${fmtMs(burst.turns.p99)} (n ${burst.turns.n}); ${burst.txPerTurn.toFixed(2)} TransactWriteItems attempts per turn (failed attempts: ${cancelled}); failed turns: ${burst.failed}. Every turn's transaction updates the same service-wide usage buckets, model totals and resource counters. ${
      burst.txPerTurn <= 1.001
        ? 'DynamoDB Local serialises such transactions instead of cancelling them, so no TransactionConflict (and no retry) shows here; in DynamoDB, simultaneous transactions on one item are cancelled and retried (tables/transactions.ts), which this run cannot measure.'
        : 'Retries are transactions cancelled by a conflicting one (TransactionConflict) and retried with backoff by tables/transactions.ts.'
    }`,
    '',
    markdownTable(
      [
        'Endpoint',
        'Connections',
        'Duration',
        'req/s (completed)',
        'p50',
        'p99',
        'non-2xx (codes)',
        'Errors / timeouts',
        'Server RSS before',
        'after',
        'max',
        'trend',
        'Tree RSS before → after',
        'Processes / threads after',
      ],
      md,
    ),
    '',
    `RSS of serverless-offline right after it started, before any request: ${fmtMb(rssStart)} (${breakdown}).`,
    '',
    'serverless-offline runs each concurrent invocation of a function in a worker thread of its own, created when no idle one exists (as Lambda starts a new execution environment), so the RSS is mostly up to 32 workers per endpoint, each with its own copy of the bundle: it measures the emulation more than the function.',
  ].join('\n');
  return { rows, markdown };
}
