/**
 * The console's deploy step (console/deploy/serverless-plugin.cjs) with the framework's real AWS
 * provider, pointed at a loopback server that plays CloudFormation, STS and S3 and records what it is
 * asked: the console goes where the framework is pointed, signed with the credentials the framework
 * resolved (here a profile that assumes a role), and a stack without the console's bucket says so.
 */
import { jest } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const AwsProvider = require('serverless/lib/plugins/aws/provider.js');
const ServerlessError = require('serverless/lib/serverless-error.js');
const ConsolePlugin = require('../../console/deploy/serverless-plugin.cjs');

interface Seen {
  method: string;
  path: string;
  action?: string;
  authorization: string;
  contentType?: string;
  cacheControl?: string;
  body: string;
}

const ASSUMED_KEY = 'ASIAASSUMEDROLE00001';
const BASE_KEY = 'AKIABASEPROFILE00001';
let server: Server;
let endpoint: string;
let seen: Seen[] = [];
let outputs: Record<string, string> = {};
let dir: string;
const saved = { ...process.env };

const xml = (root: string, ns: string, inner: string) =>
  `<?xml version="1.0"?><${root} xmlns="${ns}">${inner}<ResponseMetadata><RequestId>r1</RequestId></ResponseMetadata></${root}>`;

function answer(req: IncomingMessage, body: string): { status: number; text: string } {
  const url = new URL(req.url ?? '/', 'http://s3');
  const action = new URLSearchParams(body).get('Action');
  if (req.method === 'POST' && action === 'AssumeRole') {
    return {
      status: 200,
      text: xml(
        'AssumeRoleResponse',
        'https://sts.amazonaws.com/doc/2011-06-15/',
        `<AssumeRoleResult><Credentials><AccessKeyId>${ASSUMED_KEY}</AccessKeyId><SecretAccessKey>assumed-secret</SecretAccessKey><SessionToken>assumed-session</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials><AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/deployer/s</Arn><AssumedRoleId>AROAEXAMPLE:s</AssumedRoleId></AssumedRoleUser></AssumeRoleResult>`,
      ),
    };
  }
  if (req.method === 'POST' && action === 'DescribeStacks') {
    const members = Object.entries(outputs)
      .map(([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${v}</OutputValue></member>`)
      .join('');
    return {
      status: 200,
      text: xml(
        'DescribeStacksResponse',
        'http://cloudformation.amazonaws.com/doc/2010-05-15/',
        `<DescribeStacksResult><Stacks><member><StackName>model-ops-prod</StackName><StackStatus>UPDATE_COMPLETE</StackStatus><CreationTime>2026-01-01T00:00:00Z</CreationTime><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult>`,
      ),
    };
  }
  if (req.method === 'PUT') return { status: 200, text: '' };
  if (req.method === 'GET' && url.searchParams.get('list-type') === '2') {
    return {
      status: 200,
      text: `<?xml version="1.0"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>console-bucket</Name><KeyCount>2</KeyCount><IsTruncated>false</IsTruncated><Contents><Key>index.html</Key></Contents><Contents><Key>assets/old-1.js</Key></Contents></ListBucketResult>`,
    };
  }
  if (req.method === 'POST' && url.searchParams.has('delete')) {
    return {
      status: 200,
      text: `<?xml version="1.0"?><DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Deleted><Key>assets/old-1.js</Key></Deleted></DeleteResult>`,
    };
  }
  return { status: 400, text: `unexpected ${req.method} ${req.url}` };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const a = answer(req, body);
      seen.push({
        method: req.method as string,
        path: req.url as string,
        action: new URLSearchParams(body).get('Action') ?? undefined,
        authorization: String(req.headers.authorization ?? ''),
        contentType: req.headers['content-type'],
        cacheControl: req.headers['cache-control'],
        body,
      });
      res.writeHead(a.status, { 'content-type': 'text/xml' }).end(a.text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;

  // A profile that assumes a role from another one's keys, as `aws configure` writes them.
  dir = mkdtempSync(join(tmpdir(), 'console-deploy-'));
  mkdirSync(join(dir, '.aws'));
  writeFileSync(
    join(dir, '.aws', 'credentials'),
    `[base]\naws_access_key_id = ${BASE_KEY}\naws_secret_access_key = base-secret\n\n[deployer]\nrole_arn = arn:aws:iam::123456789012:role/deployer\nsource_profile = base\n`,
  );
  writeFileSync(join(dir, '.aws', 'config'), '');
  mkdirSync(join(dir, 'dist', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'dist', 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'dist', 'assets', 'app-1234.js'), 'console.log(1)');
  // A home of its own: ~/.aws as a person's machine has it, and nothing of this machine's.
  for (const key of Object.keys(process.env))
    if (
      /^AWS_(PROFILE|DEFAULT_PROFILE|ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN|SHARED_CREDENTIALS_FILE|CONFIG_FILE|SDK_LOAD_CONFIG|PROD_)/.test(
        key,
      )
    )
      delete process.env[key];
  process.env.HOME = dir;
});

afterAll(async () => {
  process.env = saved;
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  outputs = { ConsoleBucketName: 'console-bucket', ConsoleUrl: 'https://d111111abcdef8.cloudfront.net' };
});

/** The plugin as `serverless deploy --stage prod --aws-profile deployer` loads it, with the framework pointed at the loopback server. */
function deployPlugin() {
  const serverless: Record<string, any> = {
    service: { service: 'model-ops', provider: { name: 'aws', stage: 'prod', region: 'eu-west-1' } },
    providers: {},
    setProvider(name: string, p: unknown) {
      serverless.providers[name] = p;
    },
    getProvider: (name: string) => serverless.providers[name],
    configSchemaHandler: { defineProvider: () => undefined },
    classes: { Error: ServerlessError },
  };
  const provider = new AwsProvider(serverless, { stage: 'prod', 'aws-profile': 'deployer' });
  // How the framework's AWS requests are pointed at another endpoint (what a local AWS emulator's setup does).
  provider.sdk.config.update({ endpoint, s3ForcePathStyle: true, maxRetries: 0 });
  const log = { notice: jest.fn() };
  const plugin = new ConsolePlugin(serverless, { stage: 'prod' }, { log }, join(dir, 'dist'));
  return { run: () => plugin.hooks['after:deploy:deploy']() as Promise<void>, log };
}

test('the console goes to the endpoint the framework is pointed at, each file with its type and cache rule, index.html last, old files removed', async () => {
  const { run, log } = deployPlugin();
  await run();
  const s3 = seen.filter((r) => !r.action);
  expect(s3.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
    'PUT /console-bucket/assets/app-1234.js',
    'PUT /console-bucket/index.html',
    'GET /console-bucket',
    'POST /console-bucket',
  ]);
  expect(s3[0]).toMatchObject({ contentType: 'text/javascript; charset=utf-8', cacheControl: 'public, max-age=31536000, immutable' });
  expect(s3[1]).toMatchObject({ contentType: 'text/html; charset=utf-8', cacheControl: 'no-cache' });
  expect(s3[3]?.body).toContain('<Key>assets/old-1.js</Key>');
  expect(s3[3]?.body).not.toContain('<Key>index.html</Key>');
  expect(log.notice).toHaveBeenCalledWith(
    expect.stringMatching(/2 files uploaded to console-bucket, 1 old ones? removed\. Open https:\/\/d111111abcdef8/),
  );
});

test('a profile that assumes a role works: the role is assumed with the source profile’s keys, and the upload is signed with the role’s', async () => {
  const { run } = deployPlugin();
  await run();
  const assume = seen.find((r) => r.action === 'AssumeRole');
  expect(assume?.authorization).toContain(`Credential=${BASE_KEY}/`);
  const uploads = seen.filter((r) => r.method === 'PUT');
  expect(uploads.length).toBe(2);
  for (const put of uploads) expect(put.authorization).toContain(`Credential=${ASSUMED_KEY}/`);
});

test('a stack without the ConsoleBucketName output is a clear error, and nothing is uploaded', async () => {
  outputs = { ConsoleUrl: 'https://d111111abcdef8.cloudfront.net' };
  const { run } = deployPlugin();
  await expect(run()).rejects.toThrow(
    /The stack model-ops-prod has no ConsoleBucketName output, so the web console has nowhere to go and was not uploaded/,
  );
  expect(seen.filter((r) => r.method === 'PUT')).toEqual([]);
});
