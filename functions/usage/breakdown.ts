import { endpoint } from '../../lib/http/endpoint';
import { streamed } from '../../lib/http/types';
import { breakdownCsv, usageBreakdown } from '../../lib/usage/breakdown';
import { BreakdownQuery } from '../../generated/checks/usage';

/** GET /api/usage/breakdown (docs/openapi.yaml usageBreakdown): spend by team, user, key, model, resource or route, as JSON or CSV. */
export const handler = endpoint({ auth: 'user', query: BreakdownQuery }, async ({ query, user }) => {
  const { readUnits: _units, ...breakdown } = await usageBreakdown(user, query);
  if (query.format !== 'csv') return breakdown;
  const filename = `usage-by-${breakdown.groupBy}-${breakdown.from}-to-${breakdown.to}.csv`;
  return streamed(
    200,
    (async function* () {
      yield breakdownCsv(breakdown);
    })(),
    { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${filename}"`, 'Cache-Control': 'no-store' },
  );
});
