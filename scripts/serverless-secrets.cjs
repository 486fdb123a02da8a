'use strict';
/**
 * Serverless plugin: a package or deploy of any stage but `local` refuses the secrets' values in the
 * environment. serverless.yml passes JWT_SECRET, OIDC_CLIENT_SECRET, HOSTED_API_KEY and
 * SERVICE_CLOUD_SECRET_ACCESS_KEY on to the functions for local runs (serverless-offline hands a
 * function nothing of its own environment but AWS_*); packaged, a value would be written in plain
 * text into the CloudFormation template and into every function's configuration, readable by anyone
 * who may read either. Deployed stages keep each secret in an SSM SecureString and name it instead;
 * the functions read it once per cold start (lib/aws/parameter-store.ts).
 *
 * It runs before anything is built (package:initialize, which `deploy` runs too) and before `deploy
 * function` updates a function's configuration. `serverless offline` (npm start, the tests) runs
 * neither. CommonJS because serverless 3 loads local plugins with require().
 */

/** Each secret: where a deployed stage keeps it instead (`serverless.yml` custom settings or the variable naming it). */
const SECRETS = [
  { name: 'JWT_SECRET', parameter: (stage) => `/model-ops/${stage}/jwt-secret`, instead: 'is read from it as it is' },
  { name: 'OIDC_CLIENT_SECRET', parameter: (stage) => `/model-ops/${stage}/oidc-client-secret`, instead: 'is read from it as it is' },
  { name: 'HOSTED_API_KEY', parameter: (stage) => `/model-ops/${stage}/hosted-api-key`, instead: 'then set HOSTED_API_KEY_PARAMETER to its name' },
  {
    name: 'SERVICE_CLOUD_SECRET_ACCESS_KEY',
    parameter: (stage) => `/model-ops/${stage}/service-cloud-secret-access-key`,
    instead: 'then set SERVICE_CLOUD_SECRET_ACCESS_KEY_PARAMETER to its name',
  },
];

/** The variables that name a parameter: the IAM grant is built from the name, so it must be a path. */
const PARAMETER_NAMES = ['HOSTED_API_KEY_PARAMETER', 'SERVICE_CLOUD_SECRET_ACCESS_KEY_PARAMETER'];

/** Why `env` may not be packaged for `stage` (undefined: it may). Exported for the test. */
function refusal(stage, env) {
  if (stage === 'local') return undefined;
  const problems = [];
  const set = SECRETS.filter((s) => (env[s.name] ?? '').trim() !== '');
  if (set.length > 0) {
    problems.push(
      `${set.map((s) => s.name).join(', ')} ${set.length === 1 ? 'is' : 'are'} set in the environment. Packaged for stage "${stage}", ` +
        `${set.length === 1 ? 'its value' : 'their values'} would be written in plain text into the CloudFormation template and every function's configuration.`,
      'Keep each in an SSM SecureString and unset the variable:',
      ...set.map((s) => `  aws ssm put-parameter --type SecureString --name ${s.parameter(stage)} --value "$${s.name}"   (${s.instead})`),
      `then e.g. \`env ${set.map((s) => `-u ${s.name}`).join(' ')} npx serverless deploy --stage ${stage}\`.`,
    );
  }
  for (const name of PARAMETER_NAMES) {
    const value = (env[name] ?? '').trim();
    if (value && !/^\/[A-Za-z0-9_.\-/]+$/.test(value)) {
      problems.push(`${name} must be the full name (path) of an SSM parameter, starting with "/", got "${value}".`);
    }
  }
  return problems.length > 0 ? problems.join('\n') : undefined;
}

class RefuseDeployedSecrets {
  constructor(serverless, options) {
    this.serverless = serverless;
    this.options = options;
    const check = () => this.check();
    this.hooks = { 'before:package:initialize': check, 'before:deploy:function:initialize': check };
  }

  check() {
    const stage = this.serverless.service.provider.stage ?? this.options.stage;
    const message = refusal(stage, process.env);
    if (message) throw new this.serverless.classes.Error(`Refusing to package: ${message}`);
  }
}

module.exports = RefuseDeployedSecrets;
module.exports.refusal = refusal;
