/**
 * The e2e stack's one reconciler, driven by the test files that need a pass (as EventBridge would
 * invoke it, through serverless-offline's Lambda API: E2E_LAMBDA_URL).
 *
 * A pass acts on everything of the stage: it stops any resource over its budget and records any
 * tagged endpoint no resource holds, whichever test file made them. So a file that sets something up
 * for the reconciler and then reads what the pass did takes its turn (`inReconcilerTurn`): no other
 * file's pass runs between its set-up and its own pass, and the pass it reads is the one that acted.
 * The turn is a directory of the run (mkdir is atomic), so it holds across jest's workers.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invokeOffline, scheduledEvent } from '../../local/runtime';

export interface ReconcileReport {
  stops: { resourceId: string; endpointName: string; reason: string }[];
  orphansFound: string[];
  skipped?: string;
}

/** One reconciliation pass; a pass still holding the lease (the one before, finishing) is waited out. */
export async function reconcileNow(): Promise<ReconcileReport> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const report = (await invokeOffline(process.env.E2E_LAMBDA_URL as string, 'model-ops-e2e-reconcile', scheduledEvent())) as ReconcileReport;
    if (!report.skipped) return report;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the reconciler stayed busy');
}

/** An endpoint created on the platform behind the service's back, carrying this stage's tags: an orphan for the next pass. */
export async function orphanOnPlatform(name: string): Promise<void> {
  const res = await fetch(`${process.env.EMULATOR_URL}/_emulator/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, instanceType: 'ml.g5.xlarge', tags: { 'managed-by': 'model-ops', 'model-ops:stage': 'e2e' } }),
  });
  if (res.status !== 201) throw new Error(`the emulator refused the endpoint ${name}: ${res.status} ${await res.text()}`);
}

/** The turn of this test run (its runtime's process id: one per jest run, shared by its workers). */
const turn = () => join(tmpdir(), `model-ops-reconciler-turn-${process.env.TEST_RUNTIME_PID ?? process.pid}`);

/** Takes the turn if no file holds it. */
function taken(): boolean {
  try {
    mkdirSync(turn());
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** Runs `work` while no other test file of the run drives the reconciler; waits for its turn first. */
export async function inReconcilerTurn<T>(work: () => Promise<T>, waitMs = 240_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  while (!taken()) {
    if (Date.now() > deadline) throw new Error(`another test file held the reconciler for over ${waitMs / 1000} s (${turn()})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    return await work();
  } finally {
    rmSync(turn(), { recursive: true, force: true });
  }
}
