import { decideControl, healthOf, specStatus } from '../../lib/resources/lifecycle';
import { hourlyCosts, meanChatLatency } from '../../lib/resources/costs';
import { checkEndpointName, nameFromModelId } from '../../lib/deploy/names';
import type { EndpointStatus } from '../../lib/platforms/types';

describe('platform status to spec status', () => {
  test.each([
    ['InService', 'InService', 'healthy'],
    ['Creating', 'Creating', 'unknown'],
    ['Updating', 'Updating', 'unknown'],
    ['Deleting', 'Deleting', 'unknown'],
    ['Failed', 'Failed', 'unknown'],
    ['OutOfService', 'OutOfService', 'unknown'],
    ['SystemUpdating', 'Updating', 'unknown'],
    ['RollingBack', 'Updating', 'unknown'],
    ['UpdateRollbackFailed', 'Failed', 'unknown'],
  ])('%s is shown as %s with health %s', (platform, shown, health) => {
    const status = specStatus(platform as EndpointStatus);
    expect(status).toBe(shown);
    expect(healthOf(status)).toBe(health);
  });
});

describe('the control state table', () => {
  test.each(['managed', 'hosted'] as const)('%s: start, stop and restart are 400; delete needs confirm and only untracks', (type) => {
    for (const action of ['start', 'stop', 'restart'] as const) {
      expect(decideControl(type, action, true)).toMatchObject({ kind: 'refuse', statusCode: 400 });
    }
    expect(decideControl(type, 'delete', false)).toEqual({ kind: 'refuse', statusCode: 400, message: 'Delete requires confirm: true' });
    expect(decideControl(type, 'delete', true)).toEqual({ kind: 'untrack' });
  });

  test('dedicated: stop is always 400 (delete instead), whatever the status', () => {
    for (const status of ['InService', 'Failed', 'Updating'] as const) {
      const d = decideControl('dedicated', 'stop', true, status);
      expect(d).toMatchObject({ kind: 'refuse', statusCode: 400 });
      expect((d as { message: string }).message).toContain('use delete instead');
    }
  });

  test('dedicated: delete without confirm is 400 before the status matters', () => {
    expect(decideControl('dedicated', 'delete', false)).toMatchObject({ kind: 'refuse', statusCode: 400 });
    expect(decideControl('dedicated', 'delete', false, 'Updating')).toMatchObject({ kind: 'refuse', statusCode: 400 });
  });

  const table: [string, EndpointStatus, object][] = [
    ['start', 'InService', { kind: 'platform', operation: 'restart', next: 'Updating', word: 'updating' }],
    ['start', 'Failed', { kind: 'platform', operation: 'restart', next: 'Updating', word: 'updating' }],
    ['start', 'OutOfService', { kind: 'platform', operation: 'restart', next: 'Updating', word: 'updating' }],
    ['restart', 'InService', { kind: 'platform', operation: 'restart', next: 'Updating', word: 'updating' }],
    ['restart', 'Failed', { kind: 'refuse', statusCode: 409 }],
    ['restart', 'OutOfService', { kind: 'refuse', statusCode: 409 }],
    ['delete', 'InService', { kind: 'platform', operation: 'delete', next: 'Deleting', word: 'deleting' }],
    ['delete', 'Failed', { kind: 'platform', operation: 'delete', next: 'Deleting', word: 'deleting' }],
    ['delete', 'OutOfService', { kind: 'platform', operation: 'delete', next: 'Deleting', word: 'deleting' }],
  ];
  test.each(table)('dedicated %s from %s', (action, status, expected) => {
    expect(decideControl('dedicated', action as 'start', true, status)).toMatchObject(expected);
  });

  test.each(['Creating', 'Updating', 'Deleting', 'SystemUpdating', 'RollingBack'] as const)(
    'dedicated: every action while %s is 409 naming the status',
    (status) => {
      for (const action of ['start', 'restart', 'delete'] as const) {
        const d = decideControl('dedicated', action, true, status);
        expect(d).toMatchObject({ kind: 'refuse', statusCode: 409 });
        expect((d as { message: string }).message).toContain(`currently ${specStatus(status)}`);
      }
    },
  );
});

describe('costs', () => {
  test('hourly cost is price times count; daily is 24 hours and monthly 730', () => {
    expect(hourlyCosts(1.408, 2, 'T')).toEqual({
      hourly_cost: 2.816,
      daily_cost: 67.584,
      monthly_estimate: 2055.68,
      last_updated: 'T',
      pricing_model: 'hourly',
    });
  });

  test('mean chat latency is 0 before any chat, then total over count', () => {
    expect(meanChatLatency({ chat_count: 0, chat_latency_ms_total: 0 })).toBe(0);
    expect(meanChatLatency({ chat_count: 4, chat_latency_ms_total: 1001 })).toBe(250.25);
  });
});

describe('endpoint names', () => {
  test.each(['a', 'A1', 'my-endpoint', 'a--b', 'x'.repeat(63)])('dedicated accepts %s', (name) => {
    expect(() => checkEndpointName('dedicated', name)).not.toThrow();
  });
  test.each(['-a', 'a-', 'a_b', 'a.b', 'x'.repeat(64), ''])('dedicated refuses "%s" with SageMaker\'s rule', (name) => {
    expect(() => checkEndpointName('dedicated', name)).toThrow(/SageMaker's naming rule/);
  });
  test('managed and hosted take 1 to 63 letters, digits and hyphens', () => {
    expect(() => checkEndpointName('managed', '-ok-')).not.toThrow();
    expect(() => checkEndpointName('hosted', 'a_b')).toThrow(/1 to 63/);
  });
  test('a hosted model id gives a valid default name', () => {
    expect(nameFromModelId('meta/llama-3.1-8b-instruct')).toBe('meta-llama-3-1-8b-instruct');
    expect(nameFromModelId('///')).toBe('hosted-model');
  });
});

describe('a dedicated endpoint a guardrail stopped (OutOfService, endpoint deleted, configuration kept)', () => {
  test('start creates it again from its configuration: Creating, word creating', () => {
    expect(decideControl('dedicated', 'start', false, 'OutOfService', true)).toEqual({
      kind: 'platform',
      operation: 'recreate',
      next: 'Creating',
      word: 'creating',
    });
  });

  test('restart is 409 (nothing runs), delete needs confirm and deletes, stop stays 400', () => {
    expect(decideControl('dedicated', 'restart', false, 'OutOfService', true)).toMatchObject({ kind: 'refuse', statusCode: 409 });
    expect(decideControl('dedicated', 'delete', false, 'OutOfService', true)).toMatchObject({ kind: 'refuse', statusCode: 400 });
    expect(decideControl('dedicated', 'delete', true, 'OutOfService', true)).toEqual({
      kind: 'platform',
      operation: 'delete',
      next: 'Deleting',
      word: 'deleting',
    });
    expect(decideControl('dedicated', 'stop', true, 'OutOfService', true)).toMatchObject({ kind: 'refuse', statusCode: 400 });
  });

  test('an OutOfService endpoint that no guardrail stopped is started with UpdateEndpoint, as before', () => {
    expect(decideControl('dedicated', 'start', false, 'OutOfService', false)).toEqual({
      kind: 'platform',
      operation: 'restart',
      next: 'Updating',
      word: 'updating',
    });
  });
});
