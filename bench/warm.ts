/**
 * Section 2, warm per-request time in process: each handler called directly with API Gateway v2
 * events against DynamoDB Local and the emulator (delays 0), median and p99 of the handler's time,
 * nothing subtracted. The floor is token verification alone (verifyToken in a loop); "one DynamoDB
 * read" is the user GetItem that authentication does, through the same document client.
 */
import { check, fmtMs, markdownTable, summarize, timeLoop, type Row, type SectionResult, type Summary } from './harness';
import { expectOk, invoke, requests, service, sharedWorld, type HandlerName } from './service';

export interface WarmOptions {
  n: number;
  chatN: number;
  chatMinN: number;
  warmup: number;
  budgetMs: number;
}

interface Measured {
  name: string;
  label: string;
  summary: Summary;
  calls: Summary;
  rounds: Summary;
}

const ENDPOINTS: [HandlerName, string][] = [
  ['validate', 'validate (GET /api/auth/validate)'],
  ['listManaged', 'model list, managed, cached (GET /api/models/managed)'],
  ['resourceStatus', 'resource status, managed (GET /api/resources/{id}/status)'],
  ['threadPost', 'chat turn, thread, managed (POST /api/chat/thread)'],
  ['usageCurrent', 'usage read, conversation (GET /api/usage/current)'],
  ['conversationsList', 'conversation list (GET /api/conversations)'],
];

export async function warm(options: WarmOptions): Promise<SectionResult & { validateMedian: number }> {
  const svc = await service();
  const world = await sharedWorld();
  const req = requests(world);
  const { verifyToken } = svc.tokens;
  const { getUserById } = svc.tablesUsers;

  process.stderr.write('  floor: verifyToken…\n');
  const floor = summarize(
    await timeLoop({ n: Math.max(options.n, 1000) * 2, warmup: options.warmup * 4 }, async (_i, time) => {
      await time(() => verifyToken(world.token));
    }),
  );
  process.stderr.write('  one DynamoDB read: the user GetItem…\n');
  const read = summarize(
    await timeLoop({ n: options.n, warmup: options.warmup }, async (_i, time) => {
      await time(() => getUserById(world.user.id));
    }),
  );

  const measured: Measured[] = [];
  for (const [name, label] of ENDPOINTS) {
    process.stderr.write(`  ${label}…\n`);
    const chat = name === 'threadPost';
    const calls: number[] = [];
    const rounds: number[] = [];
    const times = await timeLoop(
      { n: chat ? options.chatN : options.n, minN: chat ? options.chatMinN : options.n, warmup: options.warmup, budgetMs: options.budgetMs },
      async (i, time) => {
        svc.meter.reset();
        const { result, meter } = await svc.meter.measure(() => invoke(svc, name, req[name](), time));
        expectOk(label, result);
        if (i >= options.warmup) {
          calls.push(meter.calls);
          rounds.push(meter.rounds);
        }
      },
    );
    measured.push({ name, label, summary: summarize(times), calls: summarize(calls), rounds: summarize(rounds) });
  }

  const get = (n: HandlerName) => measured.find((m) => m.name === n) as Measured;
  const validate = get('validate');
  const chat = get('threadPost');
  const validateLimit = 2 * (floor.median + read.median);
  const rows: Row[] = [
    {
      section: '2 warm',
      measure: 'floor: verifyToken only',
      value: `median ${fmtMs(floor.median)}, p99 ${fmtMs(floor.p99)} (n ${floor.n})`,
      status: 'info',
    },
    {
      section: '2 warm',
      measure: 'one DynamoDB read (user GetItem)',
      value: `median ${fmtMs(read.median)}, p99 ${fmtMs(read.p99)} (n ${read.n})`,
      status: 'info',
    },
  ];
  for (const m of measured) {
    rows.push({
      section: '2 warm',
      measure: m.label,
      value: `median ${fmtMs(m.summary.median)}, p99 ${fmtMs(m.summary.p99)} (n ${m.summary.n}); DynamoDB calls ${m.calls.median}, rounds ${m.rounds.median}`,
      ...(m.name === 'validate'
        ? { target: `≤ 2 × (floor + read) = ${fmtMs(validateLimit)}`, status: check(validate.summary.median <= validateLimit) }
        : { status: 'info' as const }),
    });
  }
  rows.push({
    section: '2 warm',
    measure: 'chat turn: sequential DynamoDB round trips',
    value: `median ${chat.rounds.median}, max ${chat.rounds.max} (calls median ${chat.calls.median}, max ${chat.calls.max})`,
    target: '≤ 3',
    status: check(chat.rounds.max <= 3),
  });

  const markdown = [
    'Handlers called in process with API Gateway v2 events (tests/helpers/invoke.ts) against DynamoDB Local (in memory) and the emulator (delays 0); the time is the `await handler(event, context)` alone, nothing subtracted. Logs and EMF metrics are off (LOG_LEVEL=SILENT), as their cost in Lambda is an asynchronous write to CloudWatch. DynamoDB calls and sequential round trips (overlapping calls count as one round) are counted by a middleware on the document client.',
    '',
    markdownTable(
      ['Measure', 'n', 'Median', 'p99', 'DynamoDB calls (median / max)', 'Round trips (median / max)'],
      [
        ['floor: `verifyToken(token)`', floor.n, fmtMs(floor.median), fmtMs(floor.p99), '—', '—'],
        ['one DynamoDB read (user GetItem, document client)', read.n, fmtMs(read.median), fmtMs(read.p99), '1', '1'],
        ...measured.map((m) => [
          m.label,
          m.summary.n,
          fmtMs(m.summary.median),
          fmtMs(m.summary.p99),
          `${m.calls.median} / ${m.calls.max}`,
          `${m.rounds.median} / ${m.rounds.max}`,
        ]),
      ],
    ),
    '',
    `- validate within 2× of (floor + one DynamoDB read): ${fmtMs(validate.summary.median)} vs limit ${fmtMs(validateLimit)} → ${validate.summary.median <= validateLimit ? 'met' : 'NOT met'}.`,
    `- chat turn sequential DynamoDB round trips: median ${chat.rounds.median}, max ${chat.rounds.max} (target ≤ 3) → ${chat.rounds.max <= 3 ? 'met' : 'NOT met'}.`,
    `- chat turns measured: ${chat.summary.n}${chat.summary.n < options.chatN ? ` (stopped at the ${Math.round(options.budgetMs / 1000)} s budget; at least 500 are always measured)` : ''}.`,
  ].join('\n');
  return { rows, markdown, validateMedian: validate.summary.median };
}
