/**
 * The credential provider every bundled SDK client gets in place of the SDK's default chain
 * (serverless.yml custom.esbuild.alias maps @aws-sdk/credential-provider-node here).
 *
 * In Lambda the function's role credentials are always in the environment (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), so the rest of the default chain (SSO, shared ini
 * files, credential_process, web identity, container and instance metadata) is dead weight: about
 * 90 KB minified in every bundle, with the STS/SSO clients it drags in (docs/benchmarks.md,
 * section 1). Running the bundles elsewhere (serverless-offline against real AWS platforms) needs the
 * same variables, e.g. from `aws configure export-credentials --format env`; the service's own
 * clients are given explicit credentials locally (DynamoDB Local, SERVICE_CLOUD_ACCESS_KEY_ID).
 *
 * Only the bundles use this module; tests and scripts run the SDK's own chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

/** Same signature as @aws-sdk/credential-provider-node's defaultProvider; the init is not needed. */
export const defaultProvider = (_init?: unknown) => fromEnv();
