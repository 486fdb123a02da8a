import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { inReconcilerTurn, orphanOnPlatform, reconcileNow } from '../helpers/reconciler';
import { http, loginAsAdmin, type HttpResult } from './http';

/**
 * The guardrails end to end: HTTP through serverless-offline, the reconciler invoked as EventBridge
 * would invoke it, through serverless-offline's Lambda API (E2E_LAMBDA_URL; its own schedule is off in
 * tests, as under `npm start`, which runs it on an interval). Every HTTP response is checked against
 * docs/openapi.yaml by http().
 */
jest.setTimeout(300_000);

const PACKAGE = 'arn:aws:sagemaker:us-east-1:123456789012:model-package/llm-support-bot/1';
const tag = randomUUID().slice(0, 8);
let admin: string;

function expectStatus(res: HttpResult, status: number): void {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.raw.slice(0, 1000)}`);
}

async function statusUntil(id: string, done: (res: HttpResult) => boolean): Promise<HttpResult> {
  let res = await http('GET', `/api/resources/${id}/status`, { token: admin });
  for (let i = 0; i < 40 && !done(res); i++) {
    await new Promise((r) => setTimeout(r, 250));
    res = await http('GET', `/api/resources/${id}/status`, { token: admin });
  }
  return res;
}

beforeAll(async () => {
  admin = await loginAsAdmin();
});

test('a budget stop by the scheduled reconciler, then a raised budget and start bring the endpoint back', async () => {
  const body = { endpointName: `e2e-guard-${tag}`, instanceType: 'ml.g5.xlarge', modelPackageArn: PACKAGE, monthlyBudgetUsd: 0.000001 };
  const plan = await http('POST', '/api/deploy/dedicated', { token: admin, body: { ...body, idleTimeoutMinutes: 60 } });
  expectStatus(plan, 200);
  expect(plan.body.plan.guardrails).toMatchObject({ idleTimeoutMinutes: 60, monthlyBudgetUsd: 0.000001, hourly_usd: 1.408 });

  // The endpoint is over its budget from the moment it is in service: no other file's pass may stop it before this one.
  const { id, report } = await inReconcilerTurn(async () => {
    const real = await http('POST', '/api/deploy/dedicated', { token: admin, body: { ...body, dryRun: false } });
    expectStatus(real, 200);
    const deployed = real.body.id as string;
    expectStatus(await statusUntil(deployed, (r) => r.body?.resource?.status === 'InService'), 200);
    return { id: deployed, report: await reconcileNow() };
  });
  expect(report.stops).toContainEqual({ resourceId: id, endpointName: body.endpointName, reason: 'budget' });
  const stopped = await http('GET', `/api/resources/${id}/status`, { token: admin });
  expectStatus(stopped, 200);
  expect(stopped.body.resource.status).toBe('OutOfService');
  expect(stopped.body.costs.hourly_cost).toBe(0);
  expect(stopped.body.guardrails.stopped).toMatchObject({ reason: 'budget' });

  expectStatus(await http('POST', `/api/resources/${id}/control`, { token: admin, body: { action: 'start' } }), 409);
  const raised = await http('PATCH', `/api/resources/${id}`, { token: admin, body: { monthlyBudgetUsd: 500 } });
  expectStatus(raised, 200);
  expect(raised.body.guardrails.monthly_budget_usd).toBe(500);
  const start = await http('POST', `/api/resources/${id}/control`, { token: admin, body: { action: 'start' } });
  expectStatus(start, 200);
  expect(start.body.status).toBe('creating');
  const back = await statusUntil(id, (r) => r.body?.resource?.status === 'InService');
  expect(back.body.guardrails).toMatchObject({ stopped: null, billing: true, monthly_budget_usd: 500 });

  const audit = await http('GET', '/api/admin/audit?limit=100', { token: admin });
  expectStatus(audit, 200);
  expect(audit.body.entries).toContainEqual(
    expect.objectContaining({
      action: 'resource.budget_stop',
      target: `${id} ${body.endpointName}`,
      actor: expect.objectContaining({ username: 'reconciler', role: 'system' }),
    }),
  );

  expectStatus(await http('POST', `/api/resources/${id}/control`, { token: admin, body: { action: 'delete', confirm: true } }), 200);
});

test('an endpoint with this stage tags and no resource is found by the reconciler, listed, and deleted by an admin', async () => {
  const name = `e2e-orphan-${tag}`;
  // Found by this file's pass, not by another file's between the endpoint's creation and this pass.
  const report = await inReconcilerTurn(async () => {
    await orphanOnPlatform(name);
    return reconcileNow();
  });
  expect(report.orphansFound).toContain(name);
  const listed = await http('GET', '/api/admin/orphans?limit=100', { token: admin });
  expectStatus(listed, 200);
  expect(listed.body.orphans).toContainEqual(expect.objectContaining({ endpoint_name: name, resource_id: null, hourly_cost_usd: 1.408 }));

  const deleted = await http('DELETE', `/api/admin/orphans/${name}?confirm=true`, { token: admin });
  expectStatus(deleted, 200);
  const after = await http('GET', '/api/admin/orphans?limit=100', { token: admin });
  expect(after.body.orphans.map((o: { endpoint_name: string }) => o.endpoint_name)).not.toContain(name);
});
