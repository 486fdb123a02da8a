import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runningDynamoPort, targetTable } from '../../scripts/target';

/** npm run user finds the running local stack's DynamoDB Local through npm start's state file. */
const dir = mkdtempSync(join(tmpdir(), 'target-'));
const state = join(dir, 'start.pid');
const saved = { ...process.env };

afterEach(() => {
  process.env = { ...saved };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('the DynamoDB port of a running npm start is read from its state file', () => {
  writeFileSync(state, JSON.stringify({ pid: process.pid, port: 3900, dynamoPort: 8900 }));
  expect(runningDynamoPort(state)).toBe(8900);
});

test('a state file whose process is gone, or an older lock without ports, names no port', () => {
  writeFileSync(state, JSON.stringify({ pid: 2 ** 22 + 12345, port: 3900, dynamoPort: 8900 }));
  expect(runningDynamoPort(state)).toBeUndefined();
  writeFileSync(state, String(process.pid));
  expect(runningDynamoPort(state)).toBeUndefined();
});

test('the local target uses that port unless DYNAMODB_PORT or DYNAMODB_ENDPOINT says otherwise', () => {
  writeFileSync(state, JSON.stringify({ pid: process.pid, port: 3900, dynamoPort: 8900 }));
  delete process.env.DYNAMODB_ENDPOINT;
  delete process.env.DYNAMODB_PORT;
  targetTable({ stateFile: state });
  expect(process.env.DYNAMODB_ENDPOINT).toBe('http://127.0.0.1:8900');
  delete process.env.DYNAMODB_ENDPOINT;
  process.env.DYNAMODB_PORT = '8123';
  targetTable({ stateFile: state });
  expect(process.env.DYNAMODB_ENDPOINT).toBe('http://127.0.0.1:8123');
});
