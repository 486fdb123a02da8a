import { auditedEndpoint } from '../../lib/http/endpoint';
import { refreshFromPriceList } from '../../lib/pricing/refresh';
import { RefreshPricingBody } from '../../generated/checks/pricing';

/** POST /api/pricing/update (admin, super_admin): refreshes prices from the AWS Price List API. */
export const handler = auditedEndpoint(
  { auth: 'admin', body: RefreshPricingBody, audit: { action: 'pricing.update', target: () => 'price table' } },
  async ({ body, user }) => refreshFromPriceList(user, body),
);
