/**
 * What `npm start` prints (local/terminal.ts): every taken port in one message with the variables that
 * move them, the banner that ends with the login, one short line per API request.
 */
import { portClashMessage, requestLine, suggestFreePorts, upBanner, type BannerFacts, type PortNeed } from '../../local/terminal';

const needs: PortNeed[] = [
  { port: 3000, what: 'the API and the console', variable: 'PORT' },
  { port: 3001, what: 'serverless-offline behind the console', variable: 'OFFLINE_HTTP_PORT' },
  { port: 8000, what: 'DynamoDB Local', variable: 'DYNAMODB_PORT' },
  { port: 4010, what: 'the platform emulator', variable: 'EMULATOR_PORT' },
];

describe('a port clash', () => {
  test('names every taken port in one message, each with the variable that moves it, and one command that moves them all', () => {
    const busy = [needs[0], needs[2]] as PortNeed[];
    const text = portClashMessage(busy, { PORT: 3100, DYNAMODB_PORT: 8100 });
    expect(text).toMatch(/^✖ 2 ports that npm start needs are in use by another program:/);
    expect(text).toMatch(/3000 +the API and the console +PORT/);
    expect(text).toMatch(/8000 +DynamoDB Local +DYNAMODB_PORT/);
    expect(text).not.toMatch(/EMULATOR_PORT|OFFLINE_HTTP_PORT/);
    expect(text.trim().split('\n').at(-1)?.trim()).toBe('PORT=3100 DYNAMODB_PORT=8100 npm start');
  });

  test('suggests, for each taken port, the next free one 100 up that no other part of the stack uses', async () => {
    const taken = new Set([3000, 8000, 8100]);
    const suggested = await suggestFreePorts(needs, [needs[0], needs[2]] as PortNeed[], async (p) => taken.has(p));
    expect(suggested).toEqual({ PORT: 3100, DYNAMODB_PORT: 8200 });
  });

  test('moves PORT only where the ports that follow it are free too', async () => {
    const taken = new Set([3000, 3103]);
    const suggested = await suggestFreePorts(needs, [needs[0]] as PortNeed[], async (p) => taken.has(p), { PORT: [1, 3] });
    expect(suggested).toEqual({ PORT: 3200 });
  });
});

describe('the banner', () => {
  const facts: BannerFacts = {
    url: 'http://localhost:3000',
    dynamoEndpoint: 'http://127.0.0.1:8000',
    emulatorUrl: 'http://127.0.0.1:4010',
    dataDir: '.data/',
    reconcileSeconds: 60,
    verbose: false,
    admin: { username: 'admin', generatedPassword: 'Sesame-0penS3same' },
  };

  test('ends with the login: the URL, the username and the generated password itself', () => {
    const lines = upBanner(facts).trimEnd().split('\n');
    expect(lines.slice(-3).map((l) => l.trim())).toEqual([
      'Log in at http://localhost:3000/',
      'username  admin',
      expect.stringMatching(/^password {2}Sesame-0penS3same {3}\(generated now and shown only this once/),
    ]);
  });

  test('says where the password is when it was not generated now', () => {
    expect(upBanner({ ...facts, admin: { username: 'ops' } })).toMatch(
      /password {2}the one printed at the first start \(forgotten\? npm run user -- reset-password ops\)\n/,
    );
    expect(upBanner({ ...facts, admin: { username: 'ops', chosenPassword: true } })).toMatch(/password {2}the one in ADMIN_PASSWORD\n/);
  });

  test('says how to see the full logs', () => {
    expect(upBanner(facts)).toMatch(/one line per API request.*npm start -- --verbose/);
  });
});

test('a request is one line: time, method, path, status, milliseconds', () => {
  const at = new Date(2026, 0, 2, 12, 3, 4);
  expect(requestLine({ at, method: 'POST', path: '/api/auth/login', status: 200, ms: 84.6, hungUp: false })).toBe(
    '12:03:04 POST /api/auth/login 200 85 ms',
  );
  expect(requestLine({ at, method: 'POST', path: '/v1/chat/completions', status: undefined, ms: 9, hungUp: true })).toBe(
    '12:03:04 POST /v1/chat/completions — 9 ms (the client hung up)',
  );
});
