import { auditedEndpoint } from '../../lib/http/endpoint';
import { upsertPrices } from '../../lib/pricing/table';
import { UpsertPricingBody } from '../../generated/checks/pricing';

/** POST /api/pricing (admin, super_admin): upserts price entries, all or nothing. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: UpsertPricingBody, audit: { action: 'pricing.upsert', target: () => 'price table' } },
  async ({ body, user }) => upsertPrices(body.entries, user),
);
