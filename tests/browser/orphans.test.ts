/**
 * The orphans page: endpoints this service tagged but no resource tracks, found by the reconciler
 * (invoked here as EventBridge would, through serverless-offline), adopted with guardrails or deleted.
 */
import { inReconcilerTurn, orphanOnPlatform, reconcileNow } from '../helpers/reconciler';
import { CONSOLE, adminNav, browserPerFile, unique } from './helpers';

const b = browserPerFile({ loggedIn: true });

test('an admin sees the orphans the reconciler found with what they bill, adopts one with an idle timeout and deletes another', async () => {
  const { page } = b;
  const keep = unique('orphan-keep');
  const drop = unique('orphan-drop');
  await inReconcilerTurn(async () => {
    await Promise.all([orphanOnPlatform(keep), orphanOnPlatform(drop)]);
    await reconcileNow();
  });

  await adminNav(page).getByRole('link', { name: 'Orphans' }).click();
  const table = page.getByRole('region', { name: 'Orphan endpoints' });
  const keepRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: keep }) });
  await keepRow.getByText('$1.41').waitFor();

  await keepRow.getByRole('button', { name: 'Adopt…' }).click();
  const adoptDialog = page.getByRole('dialog', { name: `Adopt ${keep}?` });
  await adoptDialog.getByLabel('Idle timeout (minutes)').fill('30');
  await adoptDialog.getByRole('button', { name: 'Adopt' }).click();
  await page.getByText(`${keep} is now tracked`).waitFor();
  await table.getByRole('rowheader', { name: keep }).waitFor({ state: 'detached' });

  const dropRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: drop }) });
  await dropRow.getByRole('button', { name: 'Delete…' }).click();
  await page
    .getByRole('dialog', { name: `Delete ${drop}?` })
    .getByRole('button', { name: 'Delete' })
    .click();
  await table.getByRole('rowheader', { name: drop }).waitFor({ state: 'detached' });

  // The adopted endpoint is a resource now, with the guardrail it was given.
  await page.getByRole('link', { name: 'open the resource' }).click();
  await page.waitForURL(`${CONSOLE()}/resources/*`);
  await page.getByText('30 min').first().waitFor();
});
