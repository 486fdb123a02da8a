/**
 * Section 15, the CloudFormation stack (issue 24): `npx serverless package --stage prod` (no AWS
 * credentials needed) in a copy of the service, and the packaged template's resources: how many, of
 * which types, how many per function, and how many more functions fit under CloudFormation's 500
 * resources a stack. cfn-lint runs over it when it is installed.
 *
 * "Per added function": the resource types the template has one of for every HTTP function (the
 * function, its invoke permission, its integration and route, and a log group, a role or a version
 * when every function has its own); a new function adds those, so the room left is the resources
 * left divided by that.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../local/runtime';
import { check, loadAverage, markdownTable, onCleanup, type Row, type SectionResult } from './harness';

const LIMIT = 500;

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    onCleanup('serverless package', () => void child.kill('SIGTERM'));
  });
}

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, any> }> };

export async function template(): Promise<SectionResult> {
  const work = mkdtempSync(join(tmpdir(), 'model-ops-bench-package-'));
  onCleanup('package copy', () => rmSync(work, { recursive: true, force: true }));
  const service = join(work, 'service');
  const skip = (source: string) => !source.startsWith(join(ROOT, 'console', 'dist'));
  for (const entry of [
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
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(service, entry), { recursive: true, filter: skip });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(service, 'node_modules'), 'dir');
  const out = join(work, 'package');
  const load = loadAverage();
  process.stderr.write('  npx serverless package --stage prod (bundles every function: about a minute idle)…\n');
  const started = performance.now();
  const { code, output } = await run('npx', ['serverless', 'package', '--stage', 'prod', '--package', out], service, {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? work,
    TMPDIR: tmpdir(),
    SLS_TELEMETRY_DISABLED: '1',
    SLS_NOTIFICATIONS_MODE: 'off',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  const seconds = (performance.now() - started) / 1000;
  const file = join(out, 'cloudformation-template-update-stack.json');
  if (code !== 0 || !existsSync(file)) throw new Error(`serverless package exited with ${code}:\n${output.slice(-3000)}`);
  const tpl = JSON.parse(readFileSync(file, 'utf8')) as Template;

  const byType = new Map<string, number>();
  for (const r of Object.values(tpl.Resources)) byType.set(r.Type, (byType.get(r.Type) ?? 0) + 1);
  const total = Object.keys(tpl.Resources).length;
  const functions = byType.get('AWS::Lambda::Function') ?? 0;
  const routes = byType.get('AWS::ApiGatewayV2::Route') ?? 0;
  // What each new HTTP function adds: its function, integration, route, and whatever else every
  // function has one of (an invoke permission, where API Gateway does not invoke through one role).
  const perFunctionTypes = ['AWS::Lambda::Function', 'AWS::ApiGatewayV2::Integration', 'AWS::ApiGatewayV2::Route'];
  for (const type of ['AWS::Lambda::Permission', 'AWS::Logs::LogGroup', 'AWS::IAM::Role', 'AWS::Lambda::Version'])
    if ((byType.get(type) ?? 0) >= functions) perFunctionTypes.push(type);
  const perAdded = perFunctionTypes.length;
  const room = Math.floor((LIMIT - total) / perAdded);

  let lint = 'cfn-lint not installed';
  if (spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' }).status === 0) {
    const res = spawnSync('cfn-lint', ['--format', 'parseable', file], { encoding: 'utf8', maxBuffer: 20 * 1024 * 1024 });
    const findings = (res.stdout ?? '').split('\n').filter((l) => l.trim());
    const rules = new Map<string, number>();
    for (const f of findings) {
      const rule = /:([EWI]\d{4}):/.exec(f)?.[1] ?? '?';
      rules.set(rule, (rules.get(rule) ?? 0) + 1);
    }
    const errors = [...rules].filter(([r]) => r.startsWith('E')).reduce((a, [, n]) => a + n, 0);
    const listed = [...rules]
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${r} ×${n}`)
      .join(', ');
    lint = `cfn-lint ${spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' })
      .stdout.trim()
      .replace(/^cfn-lint /, '')}: ${errors} errors, ${findings.length - errors} warnings or notes${listed ? ` (${listed})` : ''}`;
  }

  const S = '15 stack';
  const rows: Row[] = [
    {
      section: S,
      measure: 'resources in the packaged prod template',
      value: `${total} of ${LIMIT} for ${functions} functions (${routes} routes); ${(total / functions).toFixed(1)} per function on average`,
      status: 'info',
    },
    {
      section: S,
      measure: 'room for more functions in one stack',
      value: `${room} (${perAdded} resources per added HTTP function: ${perFunctionTypes.map((t) => t.split('::').pop()).join(', ')})`,
      target: '≥ 40',
      status: check(room >= 40),
    },
    {
      section: S,
      measure: 'function versions retained per deploy',
      value: String(byType.get('AWS::Lambda::Version') ?? 0),
      target: 'none (or pruned)',
      status: check((byType.get('AWS::Lambda::Version') ?? 0) === 0),
    },
    { section: S, measure: 'cfn-lint on the template', value: lint, status: 'info' },
  ];
  const markdown = [
    `\`npx serverless package --stage prod\` in a copy of the service (no AWS credentials; ${seconds.toFixed(0)} s, load average ${load} before), and the resources of .serverless/cloudformation-template-update-stack.json. ${lint}.`,
    '',
    markdownTable(
      ['Resources', 'Functions', 'Per function (average)', 'Per added HTTP function', 'Room for functions', 'Log groups', 'Roles', 'Versions'],
      [
        [
          `${total} / ${LIMIT}`,
          functions,
          (total / functions).toFixed(1),
          `${perAdded} (${perFunctionTypes.map((t) => t.split('::').pop()).join(', ')})`,
          room,
          byType.get('AWS::Logs::LogGroup') ?? 0,
          byType.get('AWS::IAM::Role') ?? 0,
          byType.get('AWS::Lambda::Version') ?? 0,
        ],
      ],
    ),
    '',
    markdownTable(
      ['Type', 'Count'],
      [...byType].sort((a, b) => b[1] - a[1]).map(([t, n]) => [t, n]),
    ),
  ].join('\n');
  return { rows, markdown };
}
