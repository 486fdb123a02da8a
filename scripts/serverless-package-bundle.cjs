'use strict';
/**
 * Serverless plugin: on `serverless package`, `serverless deploy` and `serverless deploy function -f X`
 * every function is bundled by ONE esbuild build with an entry point per function, and each gets a
 * zip of its own, which the framework then uploads as it would its own (`package.artifact`).
 *
 * One build, not one per function: the functions share most of their modules (the Middy stack, the
 * table client, the SDK), and a build with many entry points parses and resolves each of them once.
 * Code splitting stays off, so every function's `.mjs` is self-contained and tree-shaken to what its
 * own handler imports, byte for byte the file a build of that function alone gives.
 *
 * What a zip holds: the handler's minified `.mjs` and its external source map, at the handler's path
 * (`functions/auth/login.mjs` for `functions/auth/login.handler`), and nothing else: every dependency,
 * the AWS SDK included, is in the bundle, so there is no node_modules. The build is kept in memory
 * (`write: false`) and zipped from there: no work folder, so nothing a running `serverless offline`
 * serves from is touched.
 *
 * Zips are deterministic: the same code gives the same bytes, whenever and wherever it is packaged
 * (entries in name order, one fixed timestamp and mode, the source maps' paths relative to the
 * service). `serverless deploy` compares the zips' hashes with the last deploy's and skips a deploy
 * that changes nothing.
 *
 * The esbuild options are serverless.yml's `custom.esbuild` (scripts/esbuild-functions.cjs).
 * scripts/serverless-generate.cjs, listed before this plugin, writes generated/ first on the same
 * events. CommonJS because serverless 3 loads local plugins with require().
 */
const { createWriteStream, mkdirSync } = require('node:fs');
const { join, relative } = require('node:path');
const { finished } = require('node:stream/promises');
const archiver = require('archiver');
const { nodeFunctions, deployableBuild } = require('./esbuild-functions.cjs');

/** Every entry's timestamp: zips start at 1980, so this is written as 1980-01-01 00:00 in any time zone. */
const ZIP_DATE = new Date(0);
const FILE_MODE = 0o644;
/**
 * zlib's level 4, the cheapest of its levels that look for longer matches: the zips come out about a
 * tenth smaller than serverless-esbuild's were, for well under half the CPU of the default level 6,
 * which saves a few per cent more. A package deflates some 250 MB, mostly source maps.
 */
const ZIP_LEVEL = 4;

/** Writes one zip of in-memory files, in name order, with the fixed timestamp and mode. */
async function writeZip(file, entries) {
  const archive = archiver('zip', { zlib: { level: ZIP_LEVEL } });
  const written = finished(archive.pipe(createWriteStream(file)));
  for (const { name, contents } of [...entries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    // A view of esbuild's bytes, not a copy: a package holds some 250 MB of them.
    archive.append(Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength), { name, date: ZIP_DATE, mode: FILE_MODE });
  }
  await archive.finalize();
  await written;
}

class PackageBundle {
  constructor(serverless, options, { log }) {
    this.serverless = serverless;
    this.options = options;
    this.log = log;
    this.hooks = {
      'before:package:createDeploymentArtifacts': () => this.package(),
      'before:deploy:function:packageFunction': () => this.package(this.options.function),
    };
  }

  async package(only) {
    const { serverless } = this;
    const service = serverless.service;
    const root = serverless.serviceDir;
    const functions = nodeFunctions(service, only);
    if (functions.length === 0) return;

    const esbuild = require('esbuild');
    const started = Date.now();
    const settings = service.custom.esbuild ?? {};
    const result = await esbuild.build({
      ...deployableBuild(
        settings,
        root,
        functions.map((f) => f.entry),
      ),
      write: false,
      logLevel: 'warning',
    });
    // Each output by its path in the service (`functions/auth/login.mjs`, `….mjs.map`): the zip's names.
    const outputs = result.outputFiles.map((file) => ({ name: relative(root, file.path).split('\\').join('/'), contents: file.contents }));
    const extension = settings.outExtension?.['.js'] ?? '.js';

    // The framework's own artifacts folder: `--package <dir>` and `deploy` take them from there.
    const folder = join(root, '.serverless');
    mkdirSync(folder, { recursive: true });
    await Promise.all(
      functions.map(async ({ name, fn, source }) => {
        const bundle = `${source}${extension}`;
        const files = outputs.filter((o) => o.name === bundle || o.name === `${bundle}.map`);
        if (!files.some((o) => o.name === bundle)) throw new Error(`esbuild wrote no ${bundle} for the function ${name}`);
        const artifact = join(folder, `${name}.zip`);
        await writeZip(artifact, files);
        fn.package = { ...fn.package, artifact: relative(root, artifact) };
      }),
    );
    this.log.notice(
      `Bundled ${functions.length} function${functions.length === 1 ? '' : 's'} in one build and zipped each (${Date.now() - started} ms)`,
    );
  }
}

module.exports = PackageBundle;
