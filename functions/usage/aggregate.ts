import { streamConsumer } from '../../lib/background';
import { aggregateStreamEvent } from '../../lib/usage/aggregator';

/**
 * The table's stream consumer: folds each batch of new turns and usage hours into the shared
 * aggregates (service-wide usage, model totals, resource chat counters, month totals) and indexes
 * the turns an older version stored without their conversation index entry. Its event source mapping is in functions/usage/functions.yml.
 */
export const handler = streamConsumer('aggregation', async (event) => {
  await aggregateStreamEvent(event);
});
