import { endpoint } from '../../lib/http/endpoint';
import { pricingTable } from '../../lib/pricing/table';

/** GET /api/pricing (any user): the price table in use, with where each price came from. */
export const handler = endpoint({ auth: 'user' }, async () => pricingTable());
