'use strict';
/**
 * Serverless plugin: runs `npm run generate` (scripts/generate.ts) before the functions are bundled,
 * so that `serverless package`, `deploy`, `deploy function`, `offline` and `invoke local` work from
 * a fresh clone, where generated/ does not exist yet. It hooks the very events the bundling plugins
 * (scripts/serverless-package-bundle.cjs, scripts/serverless-offline-bundle.cjs) bundle on; hooks of
 * one event run in the order of serverless.yml's plugin list, which is why this plugin is listed
 * before them. CommonJS because serverless 3 loads local plugins with require().
 */
const { execFileSync } = require('node:child_process');
const { join } = require('node:path');

const BUNDLING_EVENTS = [
  'before:package:createDeploymentArtifacts',
  'before:deploy:function:packageFunction',
  'before:offline:start',
  'before:offline:start:init',
  'before:invoke:local:invoke',
  'before:run:run',
];

class GenerateBeforeBundling {
  constructor(serverless) {
    let done = false;
    const generate = () => {
      if (done) return;
      done = true;
      const root = serverless.serviceDir;
      // tsx as a loader in one node process; `--import` resolves it from the service's node_modules.
      execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'generate.ts')], { cwd: root, stdio: 'inherit' });
    };
    this.hooks = Object.fromEntries(BUNDLING_EVENTS.map((event) => [event, generate]));
  }
}

module.exports = GenerateBeforeBundling;
