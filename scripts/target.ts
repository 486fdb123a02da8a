/**
 * Which table an admin script works on, set in the environment before any table code is imported
 * (core/config reads it once): the local table under `npm start` by default, or with `--stage <stage>
 * [--region <region>]` a deployed stage's table with your AWS credentials.
 */
export function targetTable(options: { stage?: string; region?: string }): void {
  if (options.stage && options.stage !== 'local') {
    process.env.TABLE_NAME = `model-ops-${options.stage}`;
    if (options.region) process.env.AWS_REGION = options.region;
    delete process.env.DYNAMODB_ENDPOINT;
  } else {
    process.env.TABLE_NAME ??= 'model-ops-local';
    process.env.DYNAMODB_ENDPOINT ??= `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? 8000}`;
  }
}
