/**
 * Section 6, under load through serverless-offline: the service started with startOffline on free
 * loopback ports, reading the table this run seeded (model-ops-bench), then autocannon (programmatic)
 * with 32 connections for a fixed duration against GET /api/auth/validate and POST /api/chat/thread.
 * Each chat connection is its own user, conversation and thread, as 32 people chatting would be. (The
 * shared usage aggregates are folded from the table's stream; section 7 runs the stack with its
 * aggregator, and the in-process part here measures its lag.)
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
import { benchStream, invoke, seedChatters, service, type Service } from './service';

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

  const chatters = await seedChatters(svc, options.connections, 'Load', 'Under load: what is the capital of France?');

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
  /** From a turn's commit to the end of the aggregator's batch that folded it into USAGE#ALL. */
  lag: Summary;
}

/**
 * The same 32 chatters, in process: `rounds` times, all 32 turns at once, with DynamoDB's
 * transaction conflict rules applied on the client (tests/helpers/conflicts.ts: what DynamoDB Local
 * leaves out; each transaction holds its items 25 ms, as long as one takes in AWS), and the stream
 * aggregator polling the table as under `npm start` (local/stream-poller.ts, every 250 ms). Shows what
 * serverless-offline cannot: how many TransactWriteItems attempts a turn needs when 32 people chat at
 * once, and how long a turn takes to reach the service-wide figures.
 */
async function inProcessBurst(svc: Service, chatters: { token: string; body: string }[], rounds: number): Promise<Burst> {
  process.stderr.write(
    `  in process: ${rounds} bursts of ${chatters.length} concurrent chat turns, with the conflict rules and the stream poller…\n`,
  );
  const [{ applyTransactionConflictRules }, { startStreamPoller }, { localDynamoClient }, { handler }] = await Promise.all([
    import('../tests/helpers/conflicts'),
    import('../local/stream-poller'),
    import('../local/runtime'),
    import('../functions/usage/aggregate'),
  ]);
  // Everything before the bursts is aggregated first, so the poller's batches hold only burst turns.
  await (await benchStream(svc)).drain();
  // When each turn's transaction answered, and when the aggregator's batch holding it was done.
  const committed = new Map<string, number>();
  const folded = new Map<string, number>();
  const commits = 'benchTurnCommits';
  svc.client.db.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const turn = (args.input as { TransactItems?: { Put?: { Item?: Record<string, unknown> } }[] }).TransactItems?.[0]?.Put?.Item;
      if ((context as { commandName?: string }).commandName === 'TransactWriteItemsCommand' && turn?.entity === 'turn') {
        committed.set(`${String(turn.PK)}\u0000${String(turn.SK)}`, performance.now());
      }
      return result;
    },
    { step: 'initialize', name: commits },
  );
  const dynamo = localDynamoClient(svc.runtime.dynamoEndpoint);
  const poller = startStreamPoller({
    dynamo,
    endpoint: svc.runtime.dynamoEndpoint,
    table: svc.runtime.table,
    handler,
    intervalMs: 250,
    onBatch: (records) => {
      const now = performance.now();
      for (const r of records) folded.set(`${r.dynamodb?.Keys?.PK?.S}\u0000${r.dynamodb?.Keys?.SK?.S}`, now);
    },
  });
  const rules = applyTransactionConflictRules(svc.client.db, { holdMs: 25 });
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
    // Wait until the poller has folded every turn of the bursts (bounded).
    const done = () => [...committed.keys()].every((k) => folded.has(k));
    for (const deadline = Date.now() + 60_000; !done() && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 50));
    const lags = [...committed].flatMap(([k, at]) => (folded.has(k) ? [(folded.get(k) as number) - at] : []));
    const cancellations: Record<string, number> = {};
    for (const r of tx) if (r.error) cancellations[r.error] = (cancellations[r.error] ?? 0) + 1;
    return {
      rounds,
      turns: summarize(times),
      txPerTurn: tx.length / Math.max(1, rounds * chatters.length),
      cancellations,
      failed,
      lag: summarize(lags),
    };
  } finally {
    svc.meter.record = false;
    rules.remove();
    svc.client.db.middlewareStack.remove(commits);
    await poller.stop();
    dynamo.destroy();
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
    measure: `in process, DynamoDB's conflict rules applied: ${options.connections} concurrent chat turns (×${burst.rounds})`,
    value: `median ${fmtMs(burst.turns.median)}, p99 ${fmtMs(burst.turns.p99)}; TransactWriteItems attempts per turn ${burst.txPerTurn.toFixed(2)} (failed attempts: ${cancelled}); failed turns ${burst.failed}`,
    target: 'no failed turns',
    status: check(burst.failed === 0),
  });
  rows.push({
    section: '6 load',
    measure: 'aggregation lag under that load: a turn committed → folded into USAGE#ALL (local poller, every 250 ms)',
    value: `median ${fmtMs(burst.lag.median)}, p99 ${fmtMs(burst.lag.p99)}, max ${fmtMs(burst.lag.max)} (n ${burst.lag.n})`,
    status: 'info',
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
    `serverless-offline (local/runtime.ts startOffline, free loopback ports) over this run's DynamoDB Local table and the emulator (delays 0); autocannon, ${options.connections} connections, a warm-up of ${options.warmupRequests} requests (every worker started) then ${options.seconds} s measured per endpoint (\`--load-seconds 60\` for the 60-second run). Chat: each connection is its own user, conversation and thread. Server RSS: VmRSS (/proc) of the serverless-offline node process (the HTTP server and the handlers' worker threads), before the measured run (after the warm-up), sampled every second, and after; "trend" is the mean of the second half of the samples over the first half. Tree RSS adds its descendants, chiefly the esbuild service that keeps the one watching build of every function (scripts/serverless-offline-bundle.cjs).`,
    '',
    `In process, the same ${options.connections} chatters sent ${burst.rounds} bursts of ${options.connections} simultaneous turns with DynamoDB's transaction conflict rules applied on the client (tests/helpers/conflicts.ts: two transactions on one item at once, the later is cancelled with TransactionConflict; each holds its items 25 ms, as long as a transaction takes in AWS) and the stream aggregator polling the table as under \`npm start\`: turn median ${fmtMs(burst.turns.median)}, p99 ${fmtMs(burst.turns.p99)} (n ${burst.turns.n}); ${burst.txPerTurn.toFixed(2)} TransactWriteItems attempts per turn (failed attempts: ${cancelled}); failed turns: ${burst.failed}. Each chatter is a user of their own, and a turn's transaction holds only the caller's items, so these turns have nothing to conflict on. Aggregation lag, from a turn's commit to the end of the aggregator batch that folded it into USAGE#ALL: median ${fmtMs(burst.lag.median)}, p99 ${fmtMs(burst.lag.p99)} (n ${burst.lag.n}); in AWS add the event source mapping's batching window (1 s).`,
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
