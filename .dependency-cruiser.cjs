/**
 * The layer rules, checked by `npm run lint` (dependency-cruiser). Imports point down only:
 *
 *   functions/  thin handlers             -> lib/ (and the generated request checks)
 *   lib/        the domain                -> tables/, core/
 *   tables/     the ground floor: the one table, its keys, its items, its errors -> core/
 *                 (inside it, tables/writes/: the writes that span entities -> the entity modules)
 *   core/       config, logging, tracing, shared vocabulary -> nothing of ours
 *
 * Inside lib/, an order of its own (docs/architecture.md, Layers):
 *
 *   lib/http, lib/gateway, lib/dialects   the edge: the Middy stack, the /v1 entry points and their wire dialects, which speak HTTP
 *   lib/<domain>/                chat, deploy, resources, keys, teams, usage, … (the spec's operations)
 *   lib/calls/                   the one metered model call
 *   lib/budgets, lib/pricing, lib/platforms, lib/auth   the foundations
 *   lib/errors.ts                the domain's errors: imports nothing of lib/
 *
 * Imports point down (or sideways within a tier); tests/unit/layering.test.ts also refuses a loop
 * between lib/ folders, which a module-level cycle check does not see.
 *
 * local/ (the dev runtime), scripts/ (build steps, admin tools), bench/ and tests/ sit beside the
 * stack and may import from it; nothing that ships in a Lambda imports them. No cycles anywhere.
 */
const SHIPPED = '^(core|tables|lib|functions)/';
const BESIDE = '^(local|scripts|bench|tests|console)/';
const EDGE = '^lib/(http|gateway|dialects)/';
const FOUNDATIONS = '^lib/(budgets|pricing|platforms|auth|aws)/';
/** Everything of lib/ above the foundations: the edge, the domains and the metered call. */
const ABOVE_FOUNDATIONS = '^lib/(?!(budgets|pricing|platforms|auth|aws)/)[^/]+/';

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
      name: 'entities-below-writes',
      severity: 'error',
      comment:
        'tables/writes/ holds the writes that span entities (a turn, a call settlement, a hold, the aggregates); an entity module builds its own items and never reaches up to them.',
      from: { path: '^tables/', pathNot: '^tables/writes/' },
      to: { path: '^tables/writes/' },
    },
    {
      name: 'domain-below-http',
      severity: 'error',
      comment: 'Domain code says what went wrong (lib/errors.ts) and returns data; only the edge (lib/http, lib/gateway) speaks HTTP.',
      from: { path: '^lib/', pathNot: EDGE },
      to: { path: '^lib/http/' },
    },
    {
      name: 'edge-above-everything',
      severity: 'error',
      comment: 'The /v1 entry points are called by handlers only; nothing in lib/ builds on them but the stack beside them.',
      from: { path: '^lib/', pathNot: EDGE },
      to: { path: '^lib/gateway/' },
    },
    {
      name: 'metered-call-below-domains',
      severity: 'error',
      comment: 'lib/calls is what every entry point shares; it knows no entry point (declare what differs, pass it in).',
      from: { path: '^lib/calls/' },
      to: { path: '^lib/', pathNot: ['^lib/calls/', FOUNDATIONS, '^lib/[^/]+\\.ts$'] },
    },
    {
      name: 'foundations-at-the-bottom',
      severity: 'error',
      comment: 'Budgets, prices, platforms and credentials know nothing of the calls, domains and routes built on them.',
      from: { path: FOUNDATIONS },
      to: { path: ABOVE_FOUNDATIONS },
    },
    {
      name: 'endpoints-through-the-registry',
      severity: 'error',
      comment:
        "Generic code reaches a platform's endpoint lifecycle through lib/platforms/endpoints.ts (endpointsOf); only that platform's own deploy and catalogue import its folder.",
      from: { path: '^lib/(?!platforms/)', pathNot: '^lib/(deploy|catalogue)/dedicated\\.ts$' },
      to: { path: '^lib/platforms/dedicated/' },
    },
    {
      name: 'domain-errors-are-the-floor',
      severity: 'error',
      comment: 'lib/errors.ts is what every layer of lib/ throws: it imports nothing of lib/.',
      from: { path: '^lib/errors\\.ts$' },
      to: { path: '^lib/' },
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
      comment: 'aws-lambda is types only (@types/aws-lambda); cloudfront is the CloudFront Functions runtime module (console/deploy).',
      from: {},
      to: { couldNotResolve: true, pathNot: '^(aws-lambda|cloudfront)$' },
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
