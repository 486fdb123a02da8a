import { listAlertChannels } from '../../lib/alerts/channels';
import { endpoint } from '../../lib/http/endpoint';

/** GET /api/alerts/channels (admin): every channel, secrets masked. */
export const handler = endpoint({ auth: 'admin' }, async () => listAlertChannels());
