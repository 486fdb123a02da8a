/**
 * Deployment hygiene, read from what would be deployed: `npx serverless package --stage prod` is run
 * offline (no AWS credentials), as configured by default and with TRACING_ENABLED=true, and the
 * generated CloudFormation templates (and a bundle of each) are checked.
 *
 * The packaging runs in a temporary copy of the service (sources copied, node_modules linked), so
 * neither its `.esbuild` work folder nor a concurrent `serverless offline` or `package` in the
 * checkout can disturb the other. Packaging bundles every function in one esbuild build (minified,
 * source maps; scripts/serverless-package-bundle.cjs) and zips each: about 55 CPU-seconds a package,
 * minutes of wall time on a loaded machine (PACKAGE_TEST_TIMEOUT_MS).
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import JSZip from 'jszip';
import { parse } from 'yaml';
import { loadPlugin } from '../helpers/serverless-plugin';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Ten minutes: `npm test` runs this file beside integration files, and packaging is CPU-bound.
const TIMEOUT_MS = Number(process.env.PACKAGE_TEST_TIMEOUT_MS ?? 600_000);

/** Spec section 4: every path the spec names, as method and path (path parameters by their spec names). */
const SPEC_ROUTES = [
  'POST /api/auth/login',
  'GET /api/auth/validate',
  'POST /api/auth/logout',
  'GET /api/auth/aws-credentials',
  'GET /api/auth/nvidia-credentials',
  'GET /api/models/managed',
  'GET /api/models/dedicated',
  'GET /api/models/hosted',
  'GET /api/managed/model-info/{modelId}',
  'GET /api/hosted/model-info/{modelId}',
  'POST /api/deploy/managed',
  'POST /api/deploy/dedicated',
  'POST /api/deploy/hosted',
  'GET /api/resources/{resourceId}/status',
  'POST /api/resources/{resourceId}/control',
  'POST /api/chat/thread',
  'GET /api/chat/thread',
  'POST /api/chat',
  'GET /api/chat/legacy',
  'GET /api/usage/current',
  'POST /api/conversations',
  'GET /api/conversations',
  'GET /api/conversations/{id}/messages',
  'POST /api/admin/sync-models',
  'GET /api/pricing',
  'POST /api/pricing',
  'POST /api/pricing/update',
];

/**
 * Specific actions that AWS only authorises on Resource '*' (they support no resource-level
 * permissions); serverless.yml documents each where it grants it. Nothing else may be granted on '*'.
 */
const STAR_RESOURCE_EXCEPTIONS = new Set([
  'cloudwatch:GetMetricData',
  'pricing:GetProducts',
  'bedrock:ListFoundationModels',
  'bedrock:ListInferenceProfiles',
  'sagemaker:ListModelPackages',
  'sagemaker:ListEndpoints',
  // Only with TRACING_ENABLED=true.
  'xray:PutTraceSegments',
  'xray:PutTelemetryRecords',
]);

type Json = any;
const asList = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

let template: Json;
/** The packaged template files (default, traced), for cfn-lint. */
const templateFiles: string[] = [];
let packagingFailure: string | undefined;
let packagingOutput = '';
let traced: { template?: Json; failure?: string; bundle?: string } = {};
let untracedBundle = '';
/** Where the default package was written (the functions' zips). */
let packageOut = '';
/** `deploy function -f chatThreadPost`'s bundling, run again in the default package's copy. */
let rebuilt: { zip?: Buffer; artifacts: Record<string, string | undefined>; notices: string[] } = { artifacts: {}, notices: [] };
const REBUILT = 'chatThreadPost';
/** `serverless package --stage prod` with secrets' values in the environment: refused. */
let refused: { failure?: string; out: string } = { out: '' };
const workDir = mkdtempSync(join(tmpdir(), 'model-ops-package-'));

/** Packages the prod stage in a copy of its own (two runs in one copy would share .esbuild). */
async function packageProd(
  name: string,
  extraEnv: NodeJS.ProcessEnv,
  { freshClone = false } = {},
): Promise<{ template?: Json; failure?: string; service: string; out: string; output?: string }> {
  const service = join(workDir, name);
  // A fresh clone has no generated/: packaging writes it (scripts/serverless-generate.cjs). The other
  // copies take the checkout's, which packaging's generate step then finds current and does not render
  // again (a few CPU-seconds less). The console's sources and deploy files, not its build (packaging
  // neither builds nor uploads it).
  const filter = (source: string) => !source.startsWith(join(ROOT, 'console', 'dist'));
  for (const entry of [
    ...(freshClone ? [] : ['generated']),
    'serverless.yml',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'functions',
    'core',
    'lib',
    'tables',
    'scripts',
    'docs',
    'console',
  ]) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(service, entry), { recursive: true, filter });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(service, 'node_modules'), 'dir');
  const out = join(workDir, `${name}-package`);
  // A clean environment: nothing of the test run's local settings (secrets included) reaches the template.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? workDir,
    TMPDIR: tmpdir(),
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...extraEnv,
  };
  const { code, output } = await run('npx', ['serverless', 'package', '--stage', 'prod', '--package', out], service, env);
  const file = join(out, 'cloudformation-template-update-stack.json');
  if (code !== 0 || !existsSync(file)) return { failure: `npx serverless package --stage prod exited with ${code}:\n${output}`, service, out };
  templateFiles.push(file);
  return { template: JSON.parse(readFileSync(file, 'utf8')), service, out, output };
}

/** The minified handler of one packaged function (the .mjs files inside its zip). */
async function bundleText(out: string, fn: string): Promise<string> {
  const zip = await JSZip.loadAsync(readFileSync(join(out, `${fn}.zip`)));
  const files = Object.values(zip.files).filter((f) => f.name.endsWith('.mjs'));
  return (await Promise.all(files.map((f) => f.async('string')))).join('\n');
}

beforeAll(async () => {
  // The default (tracing off) and TRACING_ENABLED=true, side by side.
  const [plain, withTracing, withSecrets] = await Promise.all([
    packageProd('service', {}, { freshClone: true }),
    packageProd('traced', { TRACING_ENABLED: 'true' }),
    packageProd('refused', {
      JWT_SECRET: 'j'.repeat(64),
      HOSTED_API_KEY: 'nvapi-in-the-shell',
      OIDC_CLIENT_SECRET: '',
      DEDICATED_SUBNET_IDS: 'subnet-1',
    }),
  ]);
  refused = withSecrets;
  packageOut = plain.out;
  template = plain.template;
  packagingFailure = plain.failure;
  packagingOutput = plain.output ?? '';
  if (!plain.failure) {
    untracedBundle = await bundleText(plain.out, 'chatThreadPost');
    // The same code bundled again, later, by `deploy function -f`'s hook: one function, in the same copy.
    const plugin = loadPlugin('serverless-package-bundle.cjs', { serviceDir: plain.service, cli: { function: REBUILT } });
    await plugin.hooks['before:deploy:function:packageFunction']!();
    rebuilt = {
      zip: readFileSync(join(plain.service, '.serverless', `${REBUILT}.zip`)),
      artifacts: Object.fromEntries(Object.entries(plugin.functions).map(([name, fn]) => [name, fn.package?.artifact])),
      notices: plugin.notices,
    };
  }
  traced = {
    template: withTracing.template,
    failure: withTracing.failure,
    bundle: withTracing.failure ? undefined : await bundleText(withTracing.out, 'chatThreadPost'),
  };
}, TIMEOUT_MS);

afterAll(async () => {
  // The in-process build above started esbuild's service (a child process): stopped, so jest exits.
  await (await import('esbuild')).stop();
  rmSync(workDir, { recursive: true, force: true, maxRetries: 5 });
});

/**
 * cfn-lint (AWS's CloudFormation linter, a Python tool: `pip install cfn-lint`) where it is installed,
 * as on the team's machines. No finding is allowed, warnings included: the redundant DependsOn (W3005)
 * that the framework writes on every function and route are dropped by scripts/serverless-compact-stack.cjs.
 */
const cfnLint = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' }).status === 0;

function resources(type: string): [string, Json][] {
  return Object.entries<Json>(template.Resources).filter(([, r]) => r.Type === type);
}

describe('the prod CloudFormation template (npx serverless package --stage prod)', () => {
  // cfn-lint reads two templates of some 13,000 lines each: half a minute idle, more under load.
  (cfnLint ? test : test.skip)(
    'passes cfn-lint, tracing off and on, with no finding at all (no redundant DependsOn either: W3005)',
    async () => {
      expect(packagingFailure).toBeUndefined();
      expect(traced.failure).toBeUndefined();
      // cfn-lint exits non-zero when it finds anything: its JSON report is what counts.
      const report = await new Promise<string>((done, fail) =>
        execFile('cfn-lint', ['--format', 'json', ...templateFiles], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) =>
          stdout ? done(stdout) : fail(err ?? new Error('cfn-lint printed nothing')),
        ),
      );
      const findings = (JSON.parse(report) as { Rule: { Id: string }; Location: { Path: unknown[] }; Message: string }[]).map(
        (f) => `${f.Rule.Id} ${f.Location.Path.join('/')}: ${f.Message}`,
      );
      expect(findings).toEqual([]);
    },
    TIMEOUT_MS,
  );

  test('is generated offline without AWS credentials', () => {
    expect(packagingFailure).toBeUndefined();
    expect(template.Resources).toBeDefined();
  });

  test('prints no configuration warning (nodejs22.x is in the schema: scripts/serverless-runtime-schema.cjs)', () => {
    expect(packagingFailure).toBeUndefined();
    expect(packagingOutput).not.toMatch(/Configuration warning|Invalid configuration/);
  });

  test('grants no wildcard action, and nothing on Resource * beyond the documented exceptions', () => {
    expect(packagingFailure).toBeUndefined();
    const wildcards: string[] = [];
    const onStar: string[] = [];
    for (const [name, role] of resources('AWS::IAM::Role')) {
      for (const policy of asList<Json>(role.Properties.Policies)) {
        for (const statement of asList<Json>(policy.PolicyDocument.Statement)) {
          if (statement.Effect !== 'Allow') continue;
          const actions = asList<string>(statement.Action ?? statement.NotAction);
          const star = asList<unknown>(statement.Resource).some((r) => r === '*') || statement.NotResource !== undefined;
          for (const action of actions) {
            // '*', 'service:*' or any other pattern such as 'sagemaker:Describe*'.
            if (statement.NotAction !== undefined || action.includes('*')) wildcards.push(`${name}: ${action}${star ? " on '*'" : ''}`);
            else if (star && !STAR_RESOURCE_EXCEPTIONS.has(action)) onStar.push(`${name}: ${action} on '*'`);
          }
        }
      }
    }
    expect(wildcards).toEqual([]);
    expect(onStar).toEqual([]);
  });

  test('routes every spec path (section 4) to a Lambda function', () => {
    expect(packagingFailure).toBeUndefined();
    const integrations = new Map(resources('AWS::ApiGatewayV2::Integration'));
    const functions = new Set(resources('AWS::Lambda::Function').map(([name]) => name));
    const routed = new Map<string, string>();
    for (const [, route] of resources('AWS::ApiGatewayV2::Route')) {
      const key = String(route.Properties.RouteKey).replace(/\{([^}+]+)\+\}/g, '{$1}');
      const integrationRef = JSON.stringify(route.Properties.Target).match(/"Ref":"([^"]+)"/)?.[1];
      const integration = integrationRef ? integrations.get(integrationRef) : undefined;
      const fn = integration?.Properties.IntegrationUri?.['Fn::GetAtt']?.[0];
      if (fn && functions.has(fn)) routed.set(key, fn);
    }
    expect(SPEC_ROUTES.filter((r) => !routed.has(r))).toEqual([]);
    // Unknown paths get the spec's error shape from a function, not API Gateway's own 404.
    expect(routed.has('$default')).toBe(true);
  });

  test('keeps the table with point-in-time recovery and deletion protection in prod', () => {
    expect(packagingFailure).toBeUndefined();
    const tables = resources('AWS::DynamoDB::Table');
    expect(tables).toHaveLength(1);
    const [, table] = tables[0] as [string, Json];
    expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(table.DeletionPolicy).toBe('Retain');
    // A replacement (a changed key schema or table name) would otherwise delete the old table.
    expect(table.UpdateReplacePolicy).toBe('Retain');
  });

  test('runs every function on nodejs22.x on arm64; functions share a role only when they are granted exactly the same statements', () => {
    expect(packagingFailure).toBeUndefined();
    const functions = resources('AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(SPEC_ROUTES.length);
    const off = functions
      .filter(([, f]) => f.Properties.Runtime !== 'nodejs22.x' || JSON.stringify(f.Properties.Architectures) !== '["arm64"]')
      .map(([name, f]) => `${name}: ${f.Properties.Runtime} ${JSON.stringify(f.Properties.Architectures)}`);
    expect(off).toEqual([]);
    // What each function's functions.yml grants (the statement sets of serverless.yml custom.iam, or
    // statements written out), by the logical id serverless gives its function.
    const declared = new Map<string, string>();
    for (const area of readdirSync(join(ROOT, 'functions'))) {
      const file = join(ROOT, 'functions', area, 'functions.yml');
      if (!existsSync(file)) continue;
      for (const [name, fn] of Object.entries<Json>(parse(readFileSync(file, 'utf8')))) {
        declared.set(`${name[0]!.toUpperCase()}${name.slice(1)}LambdaFunction`, JSON.stringify(fn.iamRoleStatements ?? []));
      }
    }
    const users = new Map<string, string[]>();
    for (const [name, f] of functions) {
      const role = f.Properties.Role?.['Fn::GetAtt']?.[0] as string;
      users.set(role, [...(users.get(role) ?? []), name]);
    }
    const mixed: string[] = [];
    for (const [role, names] of users) {
      const grants = new Set(names.map((n) => declared.get(n)));
      if (grants.size > 1) mixed.push(`${role}: ${names.join(', ')}`);
    }
    expect(mixed).toEqual([]);
    // Sharing is what it is for: far fewer roles than functions.
    expect(users.size).toBeLessThan(functions.length / 2);
  });

  test('logs every function to one log group with a bounded retention, and lets the roles write there only', () => {
    expect(packagingFailure).toBeUndefined();
    const groups = resources('AWS::Logs::LogGroup');
    expect(groups.map(([name]) => name)).toEqual(['FunctionsLogGroup']);
    expect(groups[0]?.[1].Properties.RetentionInDays).toBe(90);
    for (const [name, f] of resources('AWS::Lambda::Function')) {
      expect([name, f.Properties.LoggingConfig?.LogGroup]).toEqual([name, { Ref: 'FunctionsLogGroup' }]);
    }
    const logResources = new Set<string>();
    for (const [, role] of resources('AWS::IAM::Role')) {
      for (const policy of asList<Json>(role.Properties.Policies)) {
        for (const st of asList<Json>(policy.PolicyDocument.Statement)) {
          if (asList<string>(st.Action).some((a) => a.startsWith('logs:'))) logResources.add(JSON.stringify(st.Resource));
        }
      }
    }
    expect([...logResources]).toEqual([
      JSON.stringify([{ 'Fn::Sub': 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:${FunctionsLogGroup}:*' }]),
    ]);
  });

  test('keeps no function versions and leaves room in the stack for at least 40 more functions', () => {
    expect(packagingFailure).toBeUndefined();
    expect(resources('AWS::Lambda::Version')).toEqual([]);
    // A new HTTP function adds its function, integration and route (API Gateway invokes it through
    // the one invoke role), and a role only when it is granted a set of statements no other function
    // has: of the 74 functions here, about one in three has grants of its own. So 40 more take
    // 40 × 3 resources and about 13 roles.
    const perFunction = 3;
    const newRoles = 13;
    expect(Object.keys(template.Resources).length + 40 * perFunction + newRoles).toBeLessThanOrEqual(500);
  });

  test('lets API Gateway invoke exactly the functions its routes name, through one role only it may assume', () => {
    expect(packagingFailure).toBeUndefined();
    expect(resources('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === 'apigateway.amazonaws.com')).toEqual([]);
    const integrations = resources('AWS::ApiGatewayV2::Integration');
    expect(integrations.length).toBeGreaterThan(60);
    for (const [name, integration] of integrations) {
      expect([name, integration.Properties.CredentialsArn]).toEqual([name, { 'Fn::GetAtt': ['HttpApiInvokeRole', 'Arn'] }]);
    }
    const [, role] = resources('AWS::IAM::Role').find(([name]) => name === 'HttpApiInvokeRole') ?? [];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Effect: 'Allow', Principal: { Service: ['apigateway.amazonaws.com'] }, Action: ['sts:AssumeRole'] },
    ]);
    const statements = asList<Json>(role.Properties.Policies).flatMap((p) => asList<Json>(p.PolicyDocument.Statement));
    expect(statements.map((st) => st.Action)).toEqual([['lambda:InvokeFunction']]);
    const invocable = asList<Json>(statements[0].Resource).map((r) => r['Fn::GetAtt'][0] as string);
    const routed = integrations.map(([, i]) => i.Properties.IntegrationUri['Fn::GetAtt'][0] as string);
    expect([...invocable].sort()).toEqual([...new Set(routed)].sort());
    // The stream aggregator and the reconciler are not behind a route: API Gateway cannot invoke them.
    expect(invocable.some((id) => /Aggregate|Reconcile/i.test(id))).toBe(false);
  });

  test('runs the reconciler on an EventBridge schedule, with a role granting only what it calls', () => {
    expect(packagingFailure).toBeUndefined();
    const fn = resources('AWS::Lambda::Function').find(([name]) => name === 'ReconcileLambdaFunction')?.[1];
    expect(fn).toBeDefined();
    const rules = resources('AWS::Events::Rule').filter(([, r]) => JSON.stringify(r.Properties.Targets).includes('ReconcileLambdaFunction'));
    expect(rules).toHaveLength(1);
    expect(rules[0]?.[1].Properties).toMatchObject({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED' });
    expect(resources('AWS::Lambda::Permission').some(([, p]) => p.Properties.Principal === 'events.amazonaws.com')).toBe(true);

    const role = template.Resources[fn.Properties.Role['Fn::GetAtt'][0]];
    const statements = asList<Json>(role.Properties.Policies).flatMap((p: Json) => asList<Json>(p.PolicyDocument.Statement));
    const actions = [...new Set(statements.flatMap((st: Json) => asList<string>(st.Action)))].filter((a) => !a.startsWith('logs:')).sort();
    expect(actions).toEqual(
      [
        // Step 6: the managed resources' inference profiles, and application profiles left behind.
        'bedrock:ListInferenceProfiles',
        'bedrock:ListTagsForResource',
        'cloudwatch:GetMetricData',
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
        'dynamodb:ConditionCheckItem',
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
        'sagemaker:CreateEndpoint',
        'sagemaker:DeleteEndpoint',
        'sagemaker:DescribeEndpoint',
        'sagemaker:DescribeEndpointConfig',
        'sagemaker:ListEndpoints',
        'sagemaker:ListTags',
        // The platforms' secret access key, where one is kept in SSM (cloudSecretKey).
        'ssm:GetParameter',
      ].sort(),
    );
    // No token is handled there: it needs no signing secret. It creates nothing but the endpoint of a
    // start queued behind a guardrail's stop (lib/resources/sync.ts), from the kept configuration, and
    // changes nothing else.
    expect(JSON.stringify(statements)).not.toMatch(/jwt-secret|sagemaker:(CreateModel|CreateEndpointConfig|Update)/);
  });

  /** Every Allow statement of every role, with the role it is in. */
  const allStatements = (): [string, Json][] =>
    resources('AWS::IAM::Role').flatMap(([name, role]) =>
      asList<Json>(role.Properties.Policies).flatMap((p: Json) => asList<Json>(p.PolicyDocument.Statement).map((st): [string, Json] => [name, st])),
    );
  const OUR_RESOURCE_TAGS = { 'aws:ResourceTag/managed-by': 'model-ops', 'aws:ResourceTag/model-ops:stage': 'prod' };
  const OUR_REQUEST_TAGS = { 'aws:RequestTag/managed-by': 'model-ops', 'aws:RequestTag/model-ops:stage': 'prod' };
  const OUR_TAG_KEYS = { 'aws:TagKeys': ['managed-by', 'model-ops:stage', 'model-ops:endpoint', 'model-ops:resource-id'] };

  test('lets no function change, delete or tag a dedicated endpoint, configuration or model that is not tagged as this service’s and stage’s', () => {
    expect(packagingFailure).toBeUndefined();
    const changes = [
      'sagemaker:AddTags',
      'sagemaker:UpdateEndpoint',
      'sagemaker:DeleteEndpoint',
      'sagemaker:DeleteEndpointConfig',
      'sagemaker:DeleteModel',
    ];
    const granted = allStatements().filter(([, st]) => asList<string>(st.Action).some((a) => changes.includes(a)));
    // The deploy, control, reconciler and orphan functions between them use every one of them.
    expect(new Set(granted.flatMap(([, st]) => asList<string>(st.Action)).filter((a) => changes.includes(a)))).toEqual(new Set(changes));
    for (const [role, st] of granted) {
      // aws:ResourceTag is a condition key of the endpoint, endpoint-config and model resource types
      // (Service Authorization Reference), so it holds for every action on them.
      expect([role, st.Condition?.StringEquals]).toEqual([role, expect.objectContaining(OUR_RESOURCE_TAGS)]);
    }
  });

  test('lets functions create endpoints, configurations and models only carrying this service’s and stage’s tags, and no other tag', () => {
    expect(packagingFailure).toBeUndefined();
    const creates = ['sagemaker:CreateModel', 'sagemaker:CreateEndpointConfig', 'sagemaker:CreateEndpoint'];
    const granted = allStatements().filter(([, st]) => asList<string>(st.Action).some((a) => creates.includes(a) || a === 'sagemaker:AddTags'));
    expect(granted.length).toBeGreaterThan(0);
    for (const [role, st] of granted) {
      expect([role, st.Condition?.StringEquals]).toEqual([role, expect.objectContaining(OUR_REQUEST_TAGS)]);
      expect([role, st.Condition?.['ForAllValues:StringEquals']]).toEqual([role, OUR_TAG_KEYS]);
      // The resource of a create does not exist yet: an aws:ResourceTag condition would refuse every create.
      if (asList<string>(st.Action).some((a) => creates.includes(a))) {
        expect([role, Object.keys(st.Condition.StringEquals).filter((k) => k.startsWith('aws:ResourceTag/'))]).toEqual([role, []]);
      }
    }
  });

  test('lets chat call only the dedicated endpoints this service and stage tagged as its own', () => {
    expect(packagingFailure).toBeUndefined();
    const byRole = new Map<string, Json[]>();
    for (const [name, role] of resources('AWS::IAM::Role')) {
      for (const policy of asList<Json>(role.Properties.Policies)) {
        for (const st of asList<Json>(policy.PolicyDocument.Statement)) {
          if (asList<string>(st.Action).some((a) => a.startsWith('sagemaker:InvokeEndpoint'))) byRole.set(name, [...(byRole.get(name) ?? []), st]);
        }
      }
    }
    // Session chat (thread and legacy), the gateway's chat (chat completions, the Responses and Messages
    // APIs and the Bedrock door's Converse and InvokeModel: their HTTP API routes and their streaming
    // URLs) and its embeddings, and nothing else
    // (functions granted exactly the same statements share a role).
    const invokers = resources('AWS::Lambda::Function')
      .filter(([, fn]) => byRole.has(fn.Properties.Role['Fn::GetAtt'][0]))
      .map(([name]) => name)
      .sort();
    expect(invokers).toEqual(
      [
        'ChatThreadPostLambdaFunction',
        'ChatLegacyPostLambdaFunction',
        'ChatCompletionsLambdaFunction',
        'ChatCompletionsStreamLambdaFunction',
        'ResponsesLambdaFunction',
        'ResponsesStreamLambdaFunction',
        'MessagesLambdaFunction',
        'MessagesStreamLambdaFunction',
        'ConverseLambdaFunction',
        'ConverseStreamLambdaFunction',
        'ConverseStreamUrlLambdaFunction',
        'InvokeLambdaFunction',
        'InvokeStreamLambdaFunction',
        'InvokeStreamUrlLambdaFunction',
        'EmbeddingsLambdaFunction',
      ].sort(),
    );
    for (const statements of byRole.values()) {
      for (const st of statements) {
        expect(JSON.stringify(st.Resource)).toMatch(/:endpoint\/\*"/);
        expect(st.Condition).toEqual({ StringEquals: { 'aws:ResourceTag/managed-by': 'model-ops', 'aws:ResourceTag/model-ops:stage': 'prod' } });
      }
    }
  });

  test('lets every gateway chat function call the model platforms streamed and not (Converse, ConverseStream, both endpoint invocations)', () => {
    expect(packagingFailure).toBeUndefined();
    for (const fn of [
      'ChatCompletionsLambdaFunction',
      'ChatCompletionsStreamLambdaFunction',
      'ResponsesLambdaFunction',
      'ResponsesStreamLambdaFunction',
      'MessagesLambdaFunction',
      'MessagesStreamLambdaFunction',
      'ConverseLambdaFunction',
      'ConverseStreamLambdaFunction',
      'ConverseStreamUrlLambdaFunction',
    ]) {
      const role = template.Resources[template.Resources[fn].Properties.Role['Fn::GetAtt'][0]];
      const actions = asList<Json>(role.Properties.Policies).flatMap((p: Json) =>
        asList<Json>(p.PolicyDocument.Statement).flatMap((st: Json) => asList<string>(st.Action)),
      );
      expect(actions).toEqual(
        expect.arrayContaining([
          'bedrock:InvokeModel',
          'bedrock:InvokeModelWithResponseStream',
          'sagemaker:InvokeEndpoint',
          'sagemaker:InvokeEndpointWithResponseStream',
        ]),
      );
    }
  });

  test('retains every log group for a bounded time and puts no secret’s value in any environment', () => {
    expect(packagingFailure).toBeUndefined();
    const unbounded = resources('AWS::Logs::LogGroup').filter(([, g]) => !(g.Properties.RetentionInDays > 0));
    expect(unbounded.map(([name]) => name)).toEqual([]);
    for (const [name, f] of resources('AWS::Lambda::Function')) {
      const variables = f.Properties.Environment?.Variables ?? {};
      for (const secret of ['JWT_SECRET', 'OIDC_CLIENT_SECRET', 'HOSTED_API_KEY', 'SERVICE_CLOUD_SECRET_ACCESS_KEY']) {
        expect([name, secret, variables[secret] ?? '']).toEqual([name, secret, '']);
      }
    }
  });

  test.each([
    // The names lib/platforms/hosted/api.ts and lib/platforms/clients.ts give their secretReader.
    ['the hosted platform API key', '/model-ops/prod/hosted-api-key'],
    ['the platform secret access key', '/model-ops/prod/service-cloud-secret-access-key'],
  ])('lets exactly the functions that can read %s from SSM read its parameter', async (what, parameter) => {
    expect(packagingFailure).toBeUndefined();
    const arn = { 'Fn::Sub': `arn:\${AWS::Partition}:ssm:\${AWS::Region}:\${AWS::AccountId}:parameter${parameter}` };
    const readers: string[] = [];
    const granted: string[] = [];
    for (const [name, f] of resources('AWS::Lambda::Function')) {
      const fn = `${name[0]!.toLowerCase()}${name.slice(1).replace(/LambdaFunction$/, '')}`;
      // The reader is made where the platform's client is: the bundle carries its name for the secret.
      if ((await bundleText(packageOut, fn)).includes(what)) readers.push(name);
      const role = template.Resources[f.Properties.Role['Fn::GetAtt'][0]];
      const statements = asList<Json>(role.Properties.Policies).flatMap((p: Json) => asList<Json>(p.PolicyDocument.Statement));
      if (
        statements.some((st) => asList<string>(st.Action).includes('ssm:GetParameter') && JSON.stringify(st.Resource).includes(JSON.stringify(arn)))
      ) {
        granted.push(name);
      }
    }
    expect(readers.length).toBeGreaterThan(0);
    expect(granted.sort()).toEqual(readers.sort());
  });
});

describe('the functions’ packages (npx serverless package --stage prod)', () => {
  test('are one zip per function holding its handler’s bundle and source map at the handler’s path, and nothing else (no node_modules)', async () => {
    expect(packagingFailure).toBeUndefined();
    const functions = resources('AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThan(40);
    for (const [id, fn] of functions) {
      const name = `${id[0]!.toLowerCase()}${id.slice(1).replace(/LambdaFunction$/, '')}`;
      const handler = fn.Properties.Handler as string;
      const source = handler.slice(0, handler.lastIndexOf('.'));
      // The framework uploads each function's own zip, and Lambda loads `functions/…/x.mjs` for `functions/…/x.handler`.
      expect([id, String(fn.Properties.Code.S3Key).split('/').pop()]).toEqual([id, `${name}.zip`]);
      const zip = await JSZip.loadAsync(readFileSync(join(packageOut, `${name}.zip`)));
      const entries = Object.values(zip.files).filter((f) => !f.dir);
      expect([id, entries.map((f) => f.name)]).toEqual([id, [`${source}.mjs`, `${source}.mjs.map`]]);
    }
  });

  test('hold source maps that name the sources without carrying them (serverless.yml: sourcesContent false)', async () => {
    expect(packagingFailure).toBeUndefined();
    const zip = await JSZip.loadAsync(readFileSync(join(packageOut, `${REBUILT}.zip`)));
    const map = JSON.parse(await zip.file('functions/chat/thread-post.mjs.map')!.async('string')) as {
      sources: string[];
      sourcesContent?: unknown;
      mappings: string;
    };
    // Relative to the map (functions/chat/), as the stack traces name them: the handler's own source and the lib it imports.
    expect(map.sources).toContain('thread-post.ts');
    expect(map.sources.some((s) => s.startsWith('../../lib/'))).toBe(true);
    expect(map.mappings.length).toBeGreaterThan(0);
    expect(map.sourcesContent).toBeUndefined();
  });

  test('are the same bytes for the same code: a later build of one function (deploy function -f) zips exactly what the package did', () => {
    expect(packagingFailure).toBeUndefined();
    expect(rebuilt.notices).toEqual([expect.stringMatching(/^Bundled 1 function in one build/)]);
    // Only the function named is bundled, and its artifact is what the framework deploys.
    expect(Object.entries(rebuilt.artifacts).filter(([, artifact]) => artifact !== undefined)).toEqual([
      [REBUILT, join('.serverless', `${REBUILT}.zip`)],
    ]);
    expect(rebuilt.zip?.equals(readFileSync(join(packageOut, `${REBUILT}.zip`)))).toBe(true);
  });
});

describe('npx serverless package --stage prod with secrets’ values in the environment', () => {
  test('is refused before anything is built, naming each variable set and the SSM parameter to keep it in instead', () => {
    expect(refused.failure).toBeDefined();
    const output = refused.failure as string;
    expect(output).toContain('Refusing to package: JWT_SECRET, HOSTED_API_KEY are set in the environment');
    expect(output).toContain('aws ssm put-parameter --type SecureString --name /model-ops/prod/jwt-secret');
    expect(output).toContain('aws ssm put-parameter --type SecureString --name /model-ops/prod/hosted-api-key');
    expect(output).toContain('HOSTED_API_KEY_PARAMETER');
    // An empty variable is no secret: OIDC_CLIENT_SECRET was set, empty.
    expect(output).not.toContain('OIDC_CLIENT_SECRET');
    expect(existsSync(join(refused.out, 'cloudformation-template-update-stack.json'))).toBe(false);
  });
});

/** The streaming functions: the route CloudFront sends to each one's URL, its origin, its function. */
const STREAMING = [
  ['/v1/chat/completions', 'completions', 'ChatCompletionsStream'],
  ['/v1/responses', 'responses', 'ResponsesStream'],
  ['/v1/messages', 'messages', 'MessagesStream'],
  ['/bedrock/model/*/converse-stream', 'converse-stream', 'ConverseStreamUrl'],
  ['/bedrock/model/*/invoke-with-response-stream', 'invoke-stream', 'InvokeStreamUrl'],
] as const;

describe.each(STREAMING)('the streaming function of %s in the prod template', (_path, _originId, fn) => {
  test('has a function URL that streams (RESPONSE_STREAM), open to the public through the URL only, the key checked inside', () => {
    expect(packagingFailure).toBeUndefined();
    const [, url] = resources('AWS::Lambda::Url').find(([name]) => name === `${fn}LambdaFunctionUrl`) ?? [];
    expect(url.Properties).toMatchObject({
      AuthType: 'NONE',
      InvokeMode: 'RESPONSE_STREAM',
      TargetFunctionArn: { 'Fn::GetAtt': [`${fn}LambdaFunction`, 'Arn'] },
    });
    const grants = resources('AWS::Lambda::Permission')
      .map(([, p]) => p.Properties)
      .filter((p) => JSON.stringify(p.FunctionName).includes(`"${fn}LambdaFunction"`));
    expect(grants).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: 'lambda:InvokeFunctionUrl', Principal: '*', FunctionUrlAuthType: 'NONE' }),
        expect.objectContaining({ Action: 'lambda:InvokeFunction', Principal: '*', InvokedViaFunctionUrl: true }),
      ]),
    );
    // Only through the URL: no grant lets anyone invoke it otherwise.
    expect(grants.every((p) => p.FunctionUrlAuthType === 'NONE' || p.InvokedViaFunctionUrl === true)).toBe(true);
  });
});

describe('the web console in the prod template', () => {
  const one = (type: string): Json => {
    const found = resources(type);
    expect(found.map(([name]) => name)).toHaveLength(1);
    return (found[0] as [string, Json])[1];
  };
  const MANAGED_CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
  const MANAGED_ALL_VIEWER_EXCEPT_HOST = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

  test('keeps its files in a private, encrypted bucket that only its CloudFront distribution can read', () => {
    expect(packagingFailure).toBeUndefined();
    const bucket = template.Resources.ConsoleBucket;
    expect(bucket.Type).toBe('AWS::S3::Bucket');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.Properties.BucketEncryption).toBeDefined();
    const statements = asList<Json>(template.Resources.ConsoleBucketPolicy.Properties.PolicyDocument.Statement);
    for (const st of statements.filter((x) => x.Effect === 'Allow')) {
      expect(st.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
      expect(JSON.stringify(st.Condition.StringEquals['AWS:SourceArn'])).toContain('ConsoleDistribution');
      expect(asList<string>(st.Action).every((a) => a === 's3:GetObject' || a === 's3:ListBucket')).toBe(true);
    }
    const origin = one('AWS::CloudFront::Distribution').Properties.DistributionConfig.Origins.find((o: Json) => o.Id === 'console');
    expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': ['ConsoleOriginAccessControl', 'Id'] });
    expect(one('AWS::CloudFront::OriginAccessControl').Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
    });
  });

  test('serves the console by default and sends /api/* and /v1/* to the HTTP API uncached, with every method and the Authorization header', () => {
    expect(packagingFailure).toBeUndefined();
    const config = one('AWS::CloudFront::Distribution').Properties.DistributionConfig;
    expect(config.DefaultCacheBehavior).toMatchObject({
      TargetOriginId: 'console',
      ViewerProtocolPolicy: 'redirect-to-https',
      AllowedMethods: ['GET', 'HEAD'],
    });
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': ['ConsoleSpaRewrite', 'FunctionMetadata.FunctionARN'] } },
    ]);
    const api = config.Origins.find((o: Json) => o.Id === 'api');
    expect(JSON.stringify(api.DomainName)).toContain('${HttpApi}.execute-api.');
    expect(api.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    for (const pattern of ['/api/*', '/v1/*']) {
      const behaviour = config.CacheBehaviors.find((b: Json) => b.PathPattern === pattern);
      expect(behaviour).toMatchObject({
        TargetOriginId: 'api',
        CachePolicyId: MANAGED_CACHING_DISABLED,
        OriginRequestPolicyId: MANAGED_ALL_VIEWER_EXCEPT_HOST,
        AllowedMethods: expect.arrayContaining(['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS']),
      });
    }
    expect(JSON.stringify(template.Outputs.ConsoleUrl.Value)).toContain('ConsoleDistribution.DomainName');
  });

  test.each(STREAMING)('sends %s, ahead of /v1/*, to its streaming function’s URL (origin %s), uncached and uncompressed', (path, originId, fn) => {
    expect(packagingFailure).toBeUndefined();
    const config = one('AWS::CloudFront::Distribution').Properties.DistributionConfig;
    const patterns = config.CacheBehaviors.map((b: Json) => b.PathPattern);
    expect(patterns.indexOf(path)).toBeGreaterThanOrEqual(0);
    expect(patterns.indexOf(path)).toBeLessThan(patterns.indexOf('/v1/*'));
    const behaviour = config.CacheBehaviors.find((b: Json) => b.PathPattern === path);
    expect(behaviour).toMatchObject({
      TargetOriginId: originId,
      Compress: false,
      CachePolicyId: MANAGED_CACHING_DISABLED,
      OriginRequestPolicyId: MANAGED_ALL_VIEWER_EXCEPT_HOST,
      AllowedMethods: expect.arrayContaining(['POST']),
    });
    // Only POST reaches the function URL: every other method goes to the HTTP API (tests/unit/cloudfront-functions.test.ts).
    expect(behaviour.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': ['StreamingMethods', 'FunctionMetadata.FunctionARN'] } },
    ]);
    expect(template.Resources.StreamingMethods.Properties).toMatchObject({
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
      FunctionCode: readFileSync(join(ROOT, 'console', 'deploy', 'streaming-methods.js'), 'utf8'),
    });
    const origin = config.Origins.find((o: Json) => o.Id === originId);
    expect(JSON.stringify(origin.DomainName)).toContain(`"${fn}LambdaFunctionUrl","FunctionUrl"`);
    expect(origin.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
  });

  test('answers with the Content-Security-Policy and page rewrite that the local front door uses', () => {
    expect(packagingFailure).toBeUndefined();
    const policy = one('AWS::CloudFront::ResponseHeadersPolicy').Properties.ResponseHeadersPolicyConfig;
    const shared = JSON.parse(readFileSync(join(ROOT, 'console', 'deploy', 'security-headers.json'), 'utf8'));
    expect(policy.SecurityHeadersConfig).toEqual(shared.SecurityHeadersConfig);
    expect(policy.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy).toMatch(/default-src 'none'.*script-src 'self'/);
    expect(template.Resources.ConsoleSpaRewrite.Properties.FunctionCode).toBe(
      readFileSync(join(ROOT, 'console', 'deploy', 'spa-rewrite.js'), 'utf8'),
    );
  });
});

describe('X-Ray tracing is switched by TRACING_ENABLED at package time', () => {
  const functions = (t: Json) => Object.entries<Json>(t.Resources).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
  const roleActions = (t: Json, roleName: string) =>
    asList<Json>(t.Resources[roleName]?.Properties?.Policies).flatMap((p) =>
      asList<Json>(p.PolicyDocument.Statement).flatMap((st) => asList<string>(st.Action)),
    );
  const roleOf = (fn: Json) => fn.Properties.Role?.['Fn::GetAtt']?.[0] as string;

  test('off by default: passive tracing, no X-Ray permission, no Tracer in the bundles', () => {
    expect(packagingFailure).toBeUndefined();
    for (const [name, fn] of functions(template)) {
      expect([name, fn.Properties.TracingConfig?.Mode ?? 'PassThrough']).toEqual([name, 'PassThrough']);
      expect(roleActions(template, roleOf(fn))).not.toContain('xray:PutTraceSegments');
    }
    expect(untracedBundle).toContain('handler');
    expect(untracedBundle).not.toContain('captureAWSv3Client');
  });

  test('on: active tracing and the right to write segments for every function, Powertools Tracer bundled', () => {
    expect(traced.failure).toBeUndefined();
    for (const [name, fn] of functions(traced.template)) {
      expect([name, fn.Properties.TracingConfig?.Mode]).toEqual([name, 'Active']);
      expect([name, roleActions(traced.template, roleOf(fn))]).toEqual([
        name,
        expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
      ]);
    }
    expect(traced.bundle).toContain('captureAWSv3Client');
  });
});
