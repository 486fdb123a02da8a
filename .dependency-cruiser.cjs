/**
 * The layer rules, checked by `npm run lint` (dependency-cruiser). Imports point down only:
 *
 *   functions/  thin handlers             -> lib/ (and the generated request checks)
 *   lib/        the domain                -> tables/, core/
 *   tables/     the ground floor: the one table, its keys, its items, its errors -> core/
 *   core/       config, logging, tracing, shared vocabulary -> nothing of ours
 *
 * local/ (the dev runtime), scripts/ (build steps, admin tools), bench/ and tests/ sit beside the
 * stack and may import from it; nothing that ships in a Lambda imports them. No cycles anywhere.
 */
const SHIPPED = '^(core|tables|lib|functions)/';
const BESIDE = '^(local|scripts|bench|tests|console)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'A cycle makes two modules one; split out what they share.', from: {}, to: { circular: true } },
    {
      name: 'core-is-the-floor',
      severity: 'error',
      comment: 'core/ is config, logging, tracing and vocabulary: it depends on no layer.',
      from: { path: '^core/' },
      to: { path: '^(tables|lib|functions|generated)/' },
    },
    {
      name: 'tables-below-lib',
      severity: 'error',
      comment: 'tables/ speaks data, not HTTP or the domain: it imports only core/ (and the SDK).',
      from: { path: '^tables/' },
      to: { path: '^(lib|functions|generated)/' },
    },
    {
      name: 'lib-below-functions',
      severity: 'error',
      comment: 'The domain does not know its handlers: declare input types in lib/.',
      from: { path: '^lib/' },
      to: { path: '^functions/' },
    },
    {
      name: 'handlers-through-lib',
      severity: 'error',
      comment: 'Handlers call one domain function in lib/; tables/ is reached through it.',
      from: { path: '^functions/' },
      to: { path: '^tables/' },
    },
    {
      name: 'generated-only-for-requests',
      severity: 'error',
      comment: 'Generated request checks and the OpenAPI document are for the handlers and lib/http only.',
      from: { path: SHIPPED, pathNot: '^(functions/|lib/http/)' },
      to: { path: '^generated/' },
    },
    {
      name: 'nothing-shipped-imports-dev-code',
      severity: 'error',
      comment: 'A Lambda never bundles the dev runtime, scripts, benchmarks, tests or the console.',
      from: { path: SHIPPED },
      to: { path: BESIDE },
    },
    {
      name: 'no-dev-dependencies-in-lambdas',
      severity: 'error',
      comment: 'What a function imports must be a runtime dependency (tables/definition.ts is used by local/, tests and scripts only).',
      from: { path: SHIPPED, pathNot: '^tables/definition\\.ts$' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'aws-lambda is types only (@types/aws-lambda).',
      from: {},
      to: { couldNotResolve: true, pathNot: '^aws-lambda$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.esbuild|\\.esbuild-offline-[^/]+|\\.serverless|coverage|console/dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.json'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
