'use strict';
/**
 * Serverless plugin: teaches serverless 3's configuration schema the nodejs22.x runtime. The
 * framework's last v3 release lists runtimes up to nodejs20.x, so every start and package printed
 * "Configuration warning at 'provider.runtime': must be equal to one of the allowed values", although
 * Lambda runs nodejs22.x and CloudFormation deploys it as written. Plugins are constructed after the
 * AWS provider defines its schema and before the configuration is validated, so the runtime is added
 * here and everything else stays validated (configValidationMode: warn). CommonJS because serverless
 * 3 loads local plugins with require().
 */
const RUNTIMES = ['nodejs22.x'];

class RuntimeSchema {
  constructor(serverless) {
    const runtimes = serverless.configSchemaHandler?.schema?.definitions?.awsLambdaRuntime?.enum;
    if (!Array.isArray(runtimes)) return;
    for (const runtime of RUNTIMES) if (!runtimes.includes(runtime)) runtimes.push(runtime);
  }
}

module.exports = RuntimeSchema;
