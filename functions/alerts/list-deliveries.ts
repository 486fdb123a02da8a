import { listAlertDeliveries } from '../../lib/alerts/channels';
import { endpoint } from '../../lib/http/endpoint';
import { ListDeliveriesQuery } from '../../generated/checks/alerts';

/** GET /api/alerts/deliveries (admin): every delivery, newest event first, failures with their last error. */
export const handler = endpoint({ auth: 'admin', query: ListDeliveriesQuery }, async ({ query }) => listAlertDeliveries(query.limit, query.cursor));
