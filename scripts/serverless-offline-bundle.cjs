'use strict';
/**
 * Serverless plugin: under `serverless offline` (npm start, the e2e and browser tests, the benchmarks)
 * every function is bundled by ONE esbuild build with shared chunks. The functions share most of their
 * code (the Middy stack, the table client, the SDK), so one build does that work once: about 1 s for
 * every function, and it stays about 1 s as functions are added.
 *
 * A package or deploy builds differently (scripts/serverless-package-bundle.cjs): one build too, but
 * without shared chunks, each function's file self-contained and minified as Lambda gets it
 * (docs/benchmarks.md section 1 measures those bundles).
 *
 * It builds every function into `<work folder>/.build/functions/<area>/<name>.mjs`, with chunks beside,
 * and points serverless-offline's `location` there. The build keeps watching the sources: after a
 * rebuild it asks serverless-offline to drop its loaded handlers (`offline:functionsUpdated`), so the
 * next invocation runs the new code.
 *
 * The esbuild options are serverless.yml's `custom.esbuild` (conditions, alias, banner, target…:
 * scripts/esbuild-functions.cjs), so what runs locally resolves the same modules as what is deployed.
 * CommonJS because serverless 3 loads local plugins with require().
 */
const { rmSync } = require('node:fs');
const { join, relative } = require('node:path');
const { nodeFunctions, esbuildOptions } = require('./esbuild-functions.cjs');
const { keepIdleConnections } = require('./idle-connections.cjs');

const OFFLINE_EVENTS = ['before:offline:start', 'before:offline:start:init'];

/**
 * serverless-offline's HTTP server (hapi's, which Node's http.createServer makes) keeps idle keep-alive
 * connections as long as the other local servers do (scripts/idle-connections.cjs): 65 s instead of Node's
 * 5 s, after which a client reusing the connection at that moment loses its request ("other side
 * closed"). serverless-offline has no setting for it and hapi creates the server itself, so the
 * servers created in this process from here on get it.
 */
function keepIdleConnectionsOfNewServers() {
  const http = require('node:http');
  if (http.createServer.keepsIdleConnections) return;
  const create = http.createServer;
  http.createServer = Object.assign(
    function createServer(...args) {
      return keepIdleConnections(create.apply(this, args));
    },
    { keepsIdleConnections: true },
  );
}

class OfflineBundle {
  constructor(serverless, options, { log }) {
    this.serverless = serverless;
    this.log = log;
    this.context = undefined;
    this.hooks = Object.fromEntries(OFFLINE_EVENTS.map((event) => [event, () => this.bundle()]));
    this.hooks['offline:start:end'] = () => this.context?.dispose();
  }

  async bundle() {
    if (this.context) return;
    keepIdleConnectionsOfNewServers();
    const { serverless } = this;
    const service = serverless.service;
    const root = serverless.serviceDir;
    const settings = service.custom.esbuild ?? {};
    const functions = nodeFunctions(service);
    const outdir = join(root, settings.outputWorkFolder ?? '.esbuild', '.build');
    rmSync(outdir, { recursive: true, force: true });
    service.custom['serverless-offline'] = { ...service.custom['serverless-offline'], location: relative(root, outdir) };

    const esbuild = require('esbuild');
    let builds = 0;
    const started = Date.now();
    let firstBuild;
    const built = new Promise((resolve) => (firstBuild = resolve));
    this.context = await esbuild.context({
      ...esbuildOptions(settings),
      absWorkingDir: root,
      entryPoints: [...new Set(functions.map((f) => f.entry))],
      outbase: root,
      outdir,
      entryNames: '[dir]/[name]',
      chunkNames: 'chunks/[name]-[hash]',
      bundle: true,
      // Shared chunks (ESM only): the modules every function imports are written once.
      splitting: true,
      format: 'esm',
      // Unminified, with linked source maps: local stack traces name the source lines.
      minify: false,
      sourcemap: 'linked',
      logLevel: 'warning',
      plugins: [
        {
          name: 'offline-reload',
          setup: (build) =>
            build.onEnd((result) => {
              if (builds++ === 0) return firstBuild(result);
              if (result.errors.length > 0) return;
              this.log.notice('Sources changed: the functions are rebuilt');
              return serverless.pluginManager.spawn('offline:functionsUpdated');
            }),
        },
      ],
    });
    // watch() builds once, then again on every change of a source the build read.
    await this.context.watch();
    const first = await built;
    if (first.errors.length > 0) throw new Error('esbuild could not bundle the functions');
    this.log.notice(`Bundled ${functions.length} functions in one build (${Date.now() - started} ms)`);
  }
}

module.exports = OfflineBundle;
