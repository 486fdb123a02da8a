/**
 * Portkey's AI gateway (`@portkey-ai/gateway`, pinned), the reference the gateway is measured against
 * (section 13). It is not a dependency of the service: the first run installs it with npm into a
 * git-ignored cache folder (.bench-cache/), later runs reuse it. It runs with node from its own build
 * (build/start-server.js, as `npm run start:node` of its package does), headless, on loopback only
 * (bench/loopback-only.cjs), and dies with this process (local/lifeline.cjs).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort, ROOT, stopChild } from '../local/runtime';
import { onCleanup } from './harness';

export const PORTKEY_VERSION = '1.15.2';
const CACHE = join(ROOT, '.bench-cache', `portkey-${PORTKEY_VERSION}`);
const SERVER = join(CACHE, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');

/** Installs Portkey's gateway into .bench-cache/ once (npm install --prefix, the exact version). */
function ensurePortkey(): string {
  if (existsSync(SERVER)) return SERVER;
  mkdirSync(CACHE, { recursive: true });
  process.stderr.write(`  installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${CACHE} (first run only)…\n`);
  const out = spawnSync('npm', ['install', '--prefix', CACHE, '--no-audit', '--no-fund', '--save-exact', `@portkey-ai/gateway@${PORTKEY_VERSION}`], {
    cwd: CACHE,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (out.status !== 0 || !existsSync(SERVER))
    throw new Error(`npm could not install @portkey-ai/gateway@${PORTKEY_VERSION}:\n${out.stderr ?? ''}${out.stdout ?? ''}`);
  return SERVER;
}

export interface Portkey {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

export async function startPortkey(): Promise<Portkey> {
  const server = ensurePortkey();
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--require', join(ROOT, 'local', 'lifeline.cjs'), '--require', join(ROOT, 'bench', 'loopback-only.cjs'), server, `--port=${port}`, '--headless'],
    { cwd: CACHE, env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-10_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const unregister = onCleanup('Portkey', () => stopChild(child));
  const deadline = Date.now() + 60_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null) throw new Error(`Portkey exited with code ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`Portkey did not listen within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    process: child,
    stop: async () => {
      await stopChild(child);
      unregister();
    },
  };
}
