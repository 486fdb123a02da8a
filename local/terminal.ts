/**
 * What `npm start` prints, as plain functions of what happened (tests/unit/terminal.test.ts pins
 * them): the port clash report, the "up" banner that ends with the login, and the one line per API
 * request that follows it.
 */

export interface PortNeed {
  port: number;
  /** What listens there, in words: "DynamoDB Local". */
  what: string;
  /** The variable that moves it: "DYNAMODB_PORT". */
  variable: string;
}

/**
 * Every port that is taken, in one message, each with the variable that moves it, and one command
 * line that moves them all to ports free now (`suggested`, by variable).
 */
export function portClashMessage(busy: PortNeed[], suggested: Record<string, number>): string {
  const width = Math.max(...busy.map((b) => b.what.length));
  const lines = busy.map((b) => `      ${String(b.port).padEnd(5)}  ${b.what.padEnd(width)}  ${b.variable}`);
  const moves = busy.filter((b) => suggested[b.variable] !== undefined).map((b) => `${b.variable}=${suggested[b.variable]}`);
  const one = busy.length === 1;
  return [
    `✖ ${one ? 'A port' : `${busy.length} ports`} that npm start needs ${one ? 'is' : 'are'} in use by another program:`,
    ...lines,
    `    Stop what holds ${one ? 'it' : 'them'} (another npm start?), or move ${one ? 'it' : 'them'} with ${one ? 'its variable' : 'their variables'}${moves.length ? ', e.g.:' : '.'}`,
    ...(moves.length ? [`      ${moves.join(' ')} npm start`] : []),
  ].join('\n');
}

export interface BannerFacts {
  url: string;
  dynamoEndpoint: string;
  emulatorUrl: string;
  dataDir: string;
  reconcileSeconds: number;
  verbose: boolean;
  admin: { username: string; generatedPassword?: string; chosenPassword?: boolean };
}

/** The "up" banner: where everything is, how to see more, and last, where nothing scrolls it away, the login. */
export function upBanner(f: BannerFacts): string {
  const password = f.admin.generatedPassword
    ? `${f.admin.generatedPassword}   (generated now and shown only this once: keep it, or change it with npm run user -- reset-password ${f.admin.username})`
    : f.admin.chosenPassword
      ? 'the one in ADMIN_PASSWORD'
      : `the one printed at the first start (forgotten? npm run user -- reset-password ${f.admin.username})`;
  return [
    '',
    `  ✔ Model Operations Service is up on ${f.url}`,
    `    Console ${f.url}/  ·  API ${f.url}/api  ·  OpenAI-compatible ${f.url}/v1`,
    `    DynamoDB Local ${f.dynamoEndpoint}  ·  platform emulator ${f.emulatorUrl}  ·  data in ${f.dataDir}`,
    f.reconcileSeconds > 0
      ? `    Reconciler every ${f.reconcileSeconds} s (RECONCILE_INTERVAL_SECONDS; 0 turns it off)`
      : '    Reconciler off (RECONCILE_INTERVAL_SECONDS=0)',
    f.verbose
      ? '    Logs: every function’s JSON log and serverless-offline’s own lines (--verbose). Ctrl-C stops everything.'
      : '    Logs: one line per API request; warnings and errors in full. npm start -- --verbose shows every function’s JSON log. Ctrl-C stops everything.',
    '',
    `  Log in at ${f.url}/`,
    `    username  ${f.admin.username}`,
    `    password  ${password}`,
    '',
  ].join('\n');
}

export interface RequestRecord {
  at: Date;
  method: string;
  path: string;
  /** What was answered; undefined when the client left before any answer. */
  status?: number;
  ms: number;
  /** The client closed the connection before the answer was complete. */
  hungUp: boolean;
}

/** One API request, once it has ended: "12:03:04 POST /api/auth/login 200 85 ms". */
export function requestLine(r: RequestRecord): string {
  const time = r.at.toTimeString().slice(0, 8);
  const status = r.status === undefined ? '—' : String(r.status);
  return `${time} ${r.method} ${r.path} ${status} ${Math.round(r.ms)} ms${r.hungUp ? ' (the client hung up)' : ''}`;
}

/**
 * A free port for each busy need, to suggest: the first of port + 100, + 200, … that is free now and
 * taken by no other need or suggestion. `derived` are ports that move with a need's (serverless-offline
 * and the function URL sit beside PORT unless their own variables are set), so they must be free too.
 */
export async function suggestFreePorts(
  needs: PortNeed[],
  busy: PortNeed[],
  isBusy: (port: number) => Promise<boolean>,
  derived: Record<string, number[]> = {},
): Promise<Record<string, number>> {
  const planned = new Set(needs.map((n) => n.port));
  const suggested: Record<string, number> = {};
  for (const need of busy) {
    for (let candidate = need.port + 100; candidate < 65_536; candidate += 100) {
      const ports = [candidate, ...(derived[need.variable] ?? []).map((offset) => candidate + offset)];
      if (ports.some((p) => p >= 65_536 || planned.has(p))) continue;
      if ((await Promise.all(ports.map(isBusy))).some(Boolean)) continue;
      for (const p of ports) planned.add(p);
      suggested[need.variable] = candidate;
      break;
    }
  }
  return suggested;
}
