/**
 * The role matrix over every operation of docs/openapi.yaml, derived from each
 * operation's x-roles (and `security: []` for public ones). Each operation is called with no token
 * and as a fresh user, admin and super_admin, with a minimal valid request (random UUIDs for ids, so
 * an allowed role may get a 404): a role outside x-roles gets 403, no token gets 401 unless the
 * operation is public, and a role inside x-roles never gets 401 or 403.
 */
import { randomUUID } from 'node:crypto';
import { call } from '../helpers/invoke';
import { PASSWORD, makeUser } from '../helpers/users';
import {
  ROLES,
  baseRequest,
  callOptions,
  errorProblems,
  leaks,
  loadHandler,
  operations,
  SECRET_NAMES,
  type Operation,
  type Role,
} from './fuzz-cases';

// /v1 takes API keys, not roles: tests/integration/gateway-keys.test.ts pins who may use which key.
const ops = operations().filter((op) => !op.apiKey);
type Caller = Role | 'no token';
const callers: Caller[] = ['no token', ...ROLES];

function expectation(op: Operation, caller: Caller): 'allowed' | 401 | 403 {
  if (op.public) return 'allowed';
  if (caller === 'no token') return 401;
  return op.roles.includes(caller) ? 'allowed' : 403;
}

/** The minimal valid request; login gets real credentials and a new user a unique name. */
async function request(op: Operation) {
  const req = baseRequest(op);
  if (op.key === 'POST /api/auth/login') {
    const { user } = await makeUser('user');
    req.body = { username: user.username, password: PASSWORD };
  }
  if (op.key === 'POST /api/admin/users' && req.body) {
    const tag = randomUUID().slice(0, 8);
    req.body = { ...req.body, username: `matrix_${tag}`, email: `matrix-${tag}@example.com` };
  }
  return req;
}

test('the secrets the leak check looks for are set', () => {
  for (const name of SECRET_NAMES) expect(process.env[name]?.length ?? 0).toBeGreaterThanOrEqual(6);
});

test('every operation declares its roles', () => {
  expect(ops.length).toBeGreaterThanOrEqual(30);
  for (const op of ops) {
    if (op.public) expect(op.roles).toEqual([]);
    else expect(op.roles.length).toBeGreaterThan(0);
    for (const r of op.roles) expect(ROLES).toContain(r);
  }
});

const rows = ops.flatMap((op) => callers.map((caller) => [op.key, caller, expectation(op, caller)] as const));

// jest's ESM loader fails on simultaneous first imports of shared modules: every handler is loaded
// once, one after the other, before the rows run side by side.
for (const op of ops) await loadHandler(op);

// Each row calls as a user of its own with ids of its own, so rows run a few at a time (jest's
// maxConcurrency): their handlers wait on DynamoDB Local and the emulator, not on each other.
test.concurrent.each(rows)('%s as %s: %s', async (key, caller, expected) => {
  const op = ops.find((o) => o.key === key)!;
  const handler = await loadHandler(op);
  const token = caller === 'no token' ? undefined : (await makeUser(caller)).token;
  const res = await call(handler, callOptions(op, await request(op), token === undefined ? undefined : { token, key: '' }));
  const summary = { status: res.status, body: res.raw.slice(0, 300) };

  expect(leaks(res)).toEqual([]);
  expect(summary.status).toBeLessThan(500);
  if (expected === 'allowed') {
    expect([401, 403]).not.toContain(summary.status);
  } else {
    expect(summary).toMatchObject({ status: expected });
  }
  if (res.status >= 400) expect({ ...summary, problems: errorProblems(res) }).toMatchObject({ problems: [] });
});
