import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config';

/**
 * The structured JSON logger (Powertools). Locally, POWERTOOLS_DEV=true pretty-prints it. Nothing
 * that could hold a secret is ever passed to it: request bodies, headers and tokens are not logged,
 * only the route, the caller's id and role, the status and the latency.
 */
export const logger = new Logger({
  serviceName: config.serviceName,
  logLevel: config.observability.logLevel as 'INFO',
  persistentKeys: { stage: config.stage },
});
