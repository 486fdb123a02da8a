import { reconcile } from '../../lib/reconcile/pass';
import { scheduled } from '../../lib/background';

/** The reconciler (EventBridge schedule; an interval under `npm start`): one pass, bounded by the Lambda's time. */
export const handler = scheduled('reconciliation', ({ deadline }) => reconcile({ deadline }));
