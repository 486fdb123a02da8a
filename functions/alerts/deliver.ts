import { streamConsumer } from '../../lib/background';
import { deliverAlerts } from '../../lib/alerts/deliver';

/**
 * The alert deliverer, a consumer of the table's stream (its event source mapping: functions/alerts/stream.yml):
 * claims the budget thresholds spend items reached and delivers alert events to the channels.
 */
export const handler = streamConsumer('alert-delivery', async (event) => {
  await deliverAlerts(event);
});
