/**
 * A local Serverless Framework plugin: publishes the web console with `serverless deploy`.
 *
 *   before:deploy:deploy   builds the console when console/dist is missing or stale (npm run
 *                          console:build), so a broken build stops the deploy before CloudFormation;
 *   after:deploy:deploy    uploads console/dist to the stack's ConsoleBucket with each file's
 *                          Content-Type and Cache-Control (console/deploy/web-rules.cjs), index.html
 *                          last so that it never names an asset not yet there, then removes files
 *                          of earlier builds; prints the ConsoleUrl.
 *
 * The upload goes through the framework's own AWS requests (provider.request, the same that uploads
 * the stack's artifacts): the same credentials, however the framework resolved them (a profile that
 * assumes a role, with its MFA prompt, SSO, the environment), the same region, and the same endpoint
 * and proxy, whatever points the framework elsewhere (a local AWS emulator, a plugin such as
 * serverless-localstack, HTTPS_PROXY). The console goes wherever the stack goes.
 *
 * `serverless package` runs neither hook, so packaging needs no AWS credentials and no build.
 * CommonJS because the framework loads plugins with require().
 */
const { spawnSync } = require('node:child_process');
const { readFileSync, readdirSync, statSync, existsSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const rules = require('./web-rules.cjs');

const ROOT = join(__dirname, '..', '..');
const DIST = join(ROOT, 'console', 'dist');

function filesUnder(dir, root = dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? filesUnder(path, root) : [relative(root, path).split(sep).join('/')];
  });
}

class ConsolePlugin {
  /** `dist`: the built console (tests upload a small one of their own). */
  constructor(serverless, options, { log }, dist = DIST) {
    this.serverless = serverless;
    this.options = options;
    this.log = log;
    this.dist = dist;
    this.hooks = {
      'before:deploy:deploy': () => this.build(),
      'after:deploy:deploy': () => this.upload(),
    };
  }

  build() {
    const result = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
        '-e',
        "import('./console/scripts/build.ts').then((m) => m.ensureConsoleBuilt({ log: console.log }))",
      ],
      {
        cwd: ROOT,
        stdio: 'inherit',
      },
    );
    if (result.status !== 0) throw new this.serverless.classes.Error('The web console did not build (npm run console:build); nothing was deployed.');
  }

  async outputs(stack) {
    const provider = this.serverless.getProvider('aws');
    const res = await provider.request('CloudFormation', 'describeStacks', { StackName: stack });
    return Object.fromEntries(((res.Stacks && res.Stacks[0] && res.Stacks[0].Outputs) || []).map((o) => [o.OutputKey, o.OutputValue]));
  }

  async upload() {
    const dist = this.dist;
    if (!existsSync(join(dist, 'index.html'))) throw new this.serverless.classes.Error('console/dist is missing; run npm run console:build');
    const provider = this.serverless.getProvider('aws');
    const stack = provider.naming.getStackName();
    const { ConsoleBucketName: bucket, ConsoleUrl: url } = await this.outputs(stack);
    if (!bucket) {
      throw new this.serverless.classes.Error(
        `The stack ${stack} has no ConsoleBucketName output, so the web console has nowhere to go and was not uploaded. ` +
          "Its bucket and distribution come from console/deploy/cloudfront.yml, merged into serverless.yml's resources: check that they still are, then deploy again.",
      );
    }
    const s3 = (method, params) => provider.request('S3', method, params);
    const keys = filesUnder(dist).sort((a, b) => (a === 'index.html' ? 1 : b === 'index.html' ? -1 : a.localeCompare(b)));
    for (const key of keys) {
      await s3('putObject', {
        Bucket: bucket,
        Key: key,
        Body: readFileSync(join(dist, key)),
        ContentType: rules.contentType(key),
        CacheControl: rules.cacheControl(key),
      });
    }
    // Files of earlier builds go once the new index.html is in place (pages open in browsers may
    // still load an old chunk for a moment: CloudFront keeps cached copies for their lifetime).
    const keep = new Set(keys);
    let token;
    const stale = [];
    do {
      const page = await s3('listObjectsV2', { Bucket: bucket, ...(token ? { ContinuationToken: token } : {}) });
      for (const o of page.Contents || []) if (!keep.has(o.Key)) stale.push({ Key: o.Key });
      token = page.NextContinuationToken;
    } while (token);
    for (let i = 0; i < stale.length; i += 1000) await s3('deleteObjects', { Bucket: bucket, Delete: { Objects: stale.slice(i, i + 1000) } });
    this.log.notice(
      `Web console: ${keys.length} files uploaded to ${bucket}${stale.length ? `, ${stale.length} old ones removed` : ''}. Open ${url}`,
    );
  }
}

module.exports = ConsolePlugin;
