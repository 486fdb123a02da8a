/**
 * The credentials every client of DynamoDB Local gives it: the service's (tables/client.ts, through
 * core/config.ts), the local stack's and the tests' (local/runtime.ts) and the stream reader's
 * (local/stream-poller.ts). Any will do, but a DynamoDB Local started without -sharedDb keeps one
 * database per access key id and region, so all of them must name the same one:
 * DYNAMODB_LOCAL_ACCESS_KEY_ID, `local` unless set (an integration test file sets its own). AWS never
 * sees them: a deployed function names no endpoint and signs with its role.
 *
 * A module of its own because it reads nothing at import: core/config.ts reads the whole configuration
 * when first imported, which the local runtime must not do before a test has set its environment.
 */
export interface DynamoLocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export function dynamoLocalCredentials(env: Record<string, string | undefined> = process.env): DynamoLocalCredentials {
  return { accessKeyId: env.DYNAMODB_LOCAL_ACCESS_KEY_ID?.trim() || 'local', secretAccessKey: 'local' };
}
