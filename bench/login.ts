/**
 * Section 5, login: the login handler's median time at BCRYPT_COST 10 divided by the median of one
 * bare bcrypt compare at the same cost (the user's own stored hash), measured interleaved so that the
 * machine's load hits both alike. Also the validate median, for the team's notes.
 */
import bcrypt from 'bcryptjs';
import { check, fmtMs, markdownTable, summarize, timeLoop, type Row, type SectionResult } from './harness';
import { expectOk, invoke, requests, service, sharedWorld } from './service';

export async function login(options: { n: number; warmup: number; validateN: number }): Promise<SectionResult> {
  const svc = await service();
  const world = await sharedWorld();
  const req = requests(world);
  const stored = await svc.tablesUsers.getUserById(world.user.id);
  if (!stored) throw new Error('benchmark user missing');
  const cost = Number(/^\$2[aby]\$(\d+)\$/.exec(stored.password_hash)?.[1]);
  if (cost !== 10) throw new Error(`the benchmark user's hash has cost ${cost}, expected 10 (BCRYPT_COST)`);

  process.stderr.write(`  login vs bare bcrypt.compare, ${options.n} each, interleaved…\n`);
  const loginTimes: number[] = [];
  const compareTimes: number[] = [];
  for (let i = 0; i < options.warmup + options.n; i++) {
    let t = performance.now();
    const res = await invoke(svc, 'login', req.login(), async (work) => {
      t = performance.now();
      return work();
    });
    const loginMs = performance.now() - t;
    expectOk('login', res);
    t = performance.now();
    const ok = await bcrypt.compare(world.password, stored.password_hash);
    const compareMs = performance.now() - t;
    if (!ok) throw new Error('bare compare failed');
    if (i >= options.warmup) {
      loginTimes.push(loginMs);
      compareTimes.push(compareMs);
    }
  }
  process.stderr.write(`  validate, ${options.validateN} calls…\n`);
  const validate = summarize(
    await timeLoop({ n: options.validateN, warmup: options.warmup }, async (_i, time) => {
      expectOk('validate', await invoke(svc, 'validate', req.validate(), time));
    }),
  );

  const l = summarize(loginTimes);
  const c = summarize(compareTimes);
  const r = l.median / c.median;
  const rows: Row[] = [
    {
      section: '5 login',
      measure: 'login handler (BCRYPT_COST 10)',
      value: `median ${fmtMs(l.median)}, p99 ${fmtMs(l.p99)} (n ${l.n})`,
      status: 'info',
    },
    {
      section: '5 login',
      measure: 'bare bcrypt.compare (cost 10)',
      value: `median ${fmtMs(c.median)}, p99 ${fmtMs(c.p99)} (n ${c.n})`,
      status: 'info',
    },
    { section: '5 login', measure: 'login / bare compare', value: r.toFixed(3), target: '≤ 1.2', status: check(r <= 1.2) },
    {
      section: '5 login',
      measure: 'validate (for the notes)',
      value: `median ${fmtMs(validate.median)}, p99 ${fmtMs(validate.p99)} (n ${validate.n})`,
      status: 'info',
    },
  ];
  const markdown = [
    `Login handler (POST /api/auth/login, correct password, BCRYPT_COST 10) and one bare \`bcrypt.compare\` (bcryptjs, the same stored hash), ${l.n} of each, interleaved, after ${options.warmup} unmeasured pairs.`,
    '',
    markdownTable(
      ['Measure', 'n', 'Median', 'p99'],
      [
        ['login handler', l.n, fmtMs(l.median), fmtMs(l.p99)],
        ['bare bcrypt.compare, cost 10', c.n, fmtMs(c.median), fmtMs(c.p99)],
        ['validate (GET /api/auth/validate)', validate.n, fmtMs(validate.median), fmtMs(validate.p99)],
      ],
    ),
    '',
    `- login / bare compare = **${r.toFixed(3)}** (target ≤ 1.2: ${r <= 1.2 ? 'met' : 'NOT met'}); the difference, ${fmtMs(l.median - c.median)}, is everything but the hash.`,
  ].join('\n');
  return { rows, markdown };
}
