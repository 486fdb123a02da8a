/**
 * A streamed call is recorded before its answer is checked (lib/calls/stream.ts): whatever the check
 * of a JSON answer costs, or however it fails, the call the platform charged is on the books first.
 * The check is replaced by one that notes when it ran and then fails as a hung validator would end
 * (the function's timeout): the one fault here that the service's own schemas can no longer produce,
 * since a schema with a regular expression is refused before the call.
 */
import { jest } from '@jest/globals';

const order: string[] = [];
jest.unstable_mockModule('../../lib/platforms/json-output', () => ({
  regexInSchema: () => undefined,
  jsonOutputTool: () => undefined,
  checkJsonOutput: () => {
    order.push('checked');
    throw new Error('Task timed out after 30.00 seconds');
  },
}));

const { openStream } = await import('../../lib/calls/stream');
type PreparedCall = Parameters<typeof openStream>[0];

async function* answer() {
  yield { kind: 'text' as const, text: '{"code":"aaaaaaaaaaaaaaaaaaaaaaaab"}' };
  yield { kind: 'usage' as const, tokensIn: 12, tokensOut: 9, latencyMs: 5 };
  yield { kind: 'stop' as const, finishReason: 'stop' as const };
}

const call = {
  callId: 'c0ffee00-0000-4000-8000-000000000000',
  started: new Date(),
  payer: { user: { id: 'u' }, memberships: [] },
  resource: { type: 'hosted', model_id: 'some-model', endpoint_name: 'some-model' },
  budgets: [],
  reservations: [],
  rates: [],
  platform: { chatStream: answer },
  request: {
    messages: [{ role: 'user', content: 'Make up a code' }],
    outputFormat: { type: 'json_schema', name: 'code', schema: { type: 'object' } },
  },
} as unknown as PreparedCall;

test('a streamed JSON answer is recorded before it is checked, so a check that never ends leaves no call unrecorded', async () => {
  const events = await openStream(call, {
    record: async (settlement) => {
      order.push(`recorded ${settlement.tokensIn}+${settlement.tokensOut}`);
    },
  });
  const seen: string[] = [];
  await expect(
    (async () => {
      for await (const event of events) seen.push(event.kind);
    })(),
  ).rejects.toThrow('Task timed out');
  expect(order).toEqual(['recorded 12+9', 'checked']);
  expect(seen).toEqual(['text']);
});
