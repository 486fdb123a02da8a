'use strict';
/**
 * What the two bundling plugins share (scripts/serverless-package-bundle.cjs for a package or deploy,
 * scripts/serverless-offline-bundle.cjs under `serverless offline`), and what bench/cold.ts measures
 * with: which functions are bundled, from which source file, and esbuild's options as serverless.yml's
 * `custom.esbuild` gives them. So what is deployed, what runs locally and what the benchmark weighs
 * resolve the same modules with the same conditions, aliases and banner.
 * CommonJS because serverless 3 loads local plugins with require().
 */

/** `custom.esbuild` keys that are the plugins' own, not esbuild's: where `serverless offline` builds to. */
const OWN_KEYS = ['outputWorkFolder'];

/**
 * Every function that has a handler and runs on Node.js, with the TypeScript file its handler is in
 * (`functions/auth/login.handler` -> `functions/auth/login.ts`). `only` names one function (`deploy
 * function -f X`).
 */
function nodeFunctions(service, only) {
  const names = only === undefined ? service.getAllFunctions() : [only];
  const found = [];
  for (const name of names) {
    const fn = service.getFunction(name);
    if (!fn.handler || !String(fn.runtime ?? service.provider.runtime).startsWith('nodejs')) continue;
    const source = fn.handler.slice(0, fn.handler.lastIndexOf('.'));
    found.push({ name, fn, source, entry: `${source}.ts` });
  }
  return found;
}

/** esbuild's options from `custom.esbuild` (every key but the plugins' own, as written there). */
function esbuildOptions(settings = {}) {
  return Object.fromEntries(Object.entries(settings).filter(([key]) => !OWN_KEYS.includes(key)));
}

/**
 * The options of a deployable build: every entry point bundled on its own (no code splitting, so each
 * function's file is self-contained and tree-shaken to what that function imports, as Lambda loads
 * it), laid out as the sources are (`functions/auth/login.ts` -> `functions/auth/login.mjs`).
 */
function deployableBuild(settings, root, entries) {
  return {
    ...esbuildOptions(settings),
    absWorkingDir: root,
    entryPoints: [...new Set(entries)],
    outbase: root,
    outdir: root,
    entryNames: '[dir]/[name]',
    bundle: true,
    splitting: false,
  };
}

module.exports = { nodeFunctions, esbuildOptions, deployableBuild };
