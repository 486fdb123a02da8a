'use strict';
/**
 * jest's module runtime (jest.config.js `runtime`), for a worker process that runs many test files one
 * after another. jest gives every file a module registry of its own, and two things a file leaves
 * behind in the worker cost the files after it. Both are set right here, at no cost to what a test
 * sees: the same code runs, in the same registries, with the same stack traces.
 *
 * 1. A code cache per worker process. Each file compiles again every module it loads: the AWS SDK,
 *    the Middy stack, lib/ and tables/, a few hundred CommonJS and ES modules a file, the same ones
 *    file after file. V8 keeps a compilation cache for exactly this, but on Node 20 jest's modules miss
 *    it: CommonJS bodies are compiled with a dynamic-import callback and ES modules are
 *    vm.SourceTextModules, neither of which V8's in-memory cache serves. So V8's code cache is kept
 *    here, one entry per module:
 *    - Only for modules that never call `import(`: code compiled from a cache keeps the dynamic-import
 *      callback of the module the cache was made from, another file's registry (`import()` then
 *      fails: "A dynamic import callback was not specified"). Those few compile as before.
 *    - CommonJS: compiled as a vm.Script without the callback (it would never be asked), from the
 *      cache when there is one. The cache is written when the file that first loaded the module is
 *      done, so it holds the functions that file's tests compiled too.
 *    - ES modules: jest builds them with `new vm.SourceTextModule(code, options)`, reading the class
 *      off the `node:vm` module each time, so a subclass put there passes the cache in `cachedData`.
 *      A module's cache can only be made before it is evaluated: it holds what V8 compiles eagerly.
 *    An entry is used only for exactly the source it was made from (V8 checks a module's length, not
 *    its text), and V8 compiles afresh where it rejects one.
 * 2. AsyncLocalStorage instances are disabled when their file is done. jest-circus makes one per file
 *    (its test execution context) and never disables it, and Node 20 hands every enabled instance
 *    every new promise and async resource. The worker's 45th file paid for the 44 before it on each
 *    of its promises. `run()` enables an instance again, so one that outlives its file still works.
 *
 * Measured on 30 integration files in one process (docs/testing.md, means of two runs): 46.5 CPU-s with
 * jest's own runtime, 40.5 with the code cache alone, 37.7 with both.
 */
const asyncHooks = require('node:async_hooks');
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/** Per worker process: `cjs:` or `esm:` and the module's path → the source it was compiled from and V8's code cache. */
const cache = new Map();

/** Whether a module's code may be compiled from a cache: not if it calls `import(` (above). */
function cacheable(source) {
  return !source.includes('import(');
}

/** The entry for `key` made from exactly `source`, if any. */
function cached(key, source) {
  const entry = cache.get(key);
  return entry && entry.source === source ? entry.data : undefined;
}

const { SourceTextModule } = vm;
if (SourceTextModule) {
  vm.SourceTextModule = class CachedSourceTextModule extends SourceTextModule {
    constructor(code, options) {
      const key = options?.identifier && cacheable(code) ? `esm:${options.identifier}` : undefined;
      const data = key ? cached(key, code) : undefined;
      super(code, data ? { ...options, cachedData: data } : options);
      if (key && !data) cache.set(key, { source: code, data: this.createCachedData() });
    }
  };
}

/** The AsyncLocalStorage instances made since the last file was done. */
let storages = [];
asyncHooks.AsyncLocalStorage = class TrackedAsyncLocalStorage extends asyncHooks.AsyncLocalStorage {
  constructor(...args) {
    super(...args);
    storages.push(this);
  }
};

class WorkerRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    /** Scripts compiled without a code cache by this file, whose cache is written at its teardown. */
    this.uncached = [];
    const executor = this.executor;
    const compile = executor.compile.bind(executor);
    executor.compile = (source, filename) => {
      if (!cacheable(source)) return compile(source, filename);
      const context = executor.environment.getVmContext();
      if (context == null) return null;
      const key = `cjs:${filename}`;
      const data = cached(key, source);
      let script;
      try {
        script = new vm.Script(`(function (${executor.injectedModuleParameters.join(', ')}) {${source}\n})`, {
          filename,
          ...(data ? { cachedData: data } : {}),
        });
      } catch {
        // A syntax error (an ES module loaded as CommonJS, say): jest's own compile reports it, or falls back.
        return compile(source, filename);
      }
      if (!data) this.uncached.push({ key, source, script });
      return script.runInContext(context);
    };
  }

  teardown() {
    for (const { key, source, script } of this.uncached) if (!cache.has(key)) cache.set(key, { source, data: script.createCachedData() });
    this.uncached = [];
    for (const storage of storages) storage.disable();
    storages = [];
    return super.teardown();
  }
}

module.exports = WorkerRuntime;
module.exports.default = WorkerRuntime;
