/**
 * jest's TypeScript transform: esbuild strips the types, file by file, as tsconfig's isolatedModules
 * already requires (types are checked by `npm run typecheck`, never here). It replaced ts-jest, which
 * loads the TypeScript compiler in every worker and transpiles an order of magnitude slower
 * (docs/testing.md has the figures). Plain JS on purpose: jest loads it without any transform.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { transformSync, version } from 'esbuild';

/** What else decides the output: this file and esbuild's version (jest adds the source, its path and the config). */
const salt = createHash('sha1')
  .update(readFileSync(new URL(import.meta.url)))
  .update(version)
  .digest('hex');

export default {
  canInstrument: false,
  getCacheKey(source, path, options) {
    return createHash('sha1')
      .update(salt)
      .update(source)
      .update(path)
      .update(options.configString)
      .update(options.supportsStaticESM ? 'esm' : 'cjs')
      .digest('hex');
  },
  process(source, path, options) {
    const { code, map } = transformSync(source, {
      loader: 'ts',
      // ESM where jest runs the file as ESM (extensionsToTreatAsEsm), as tsconfig's module: ESNext.
      format: options.supportsStaticESM ? 'esm' : 'cjs',
      // tsconfig's target; Node 20 runs ES2022 as it is (class fields, top-level await).
      target: 'es2022',
      // Kept as written: `import … with { type: 'json' }` (functions/system/openapi.ts). ES2022 has no
      // import attributes, so esbuild would drop them, and jest warns on a JSON import without one.
      supported: { 'import-attributes': true },
      sourcefile: path,
      sourcemap: 'external',
      sourcesContent: false,
    });
    return { code, map };
  },
};
