/**
 * Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) driven by playwright-core, which never
 * downloads a browser of its own. One launcher for the browser tests, the screenshots and the
 * benchmarks: headless, no sandbox (CI runs as root), nothing that reaches the network on its own,
 * and a fresh profile each time.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserServer } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

/** Throws, naming the package to install, where there is no Chromium to launch. */
function requireChromium(): void {
  if (!chromiumAvailable())
    throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH`);
}

export interface LaunchedBrowser {
  context: BrowserContext;
  browser: Browser | null;
  close(): Promise<void>;
}

/**
 * A persistent context on a fresh user-data-dir (what --user-data-dir asks for), removed on close.
 * Where a browser server already runs (CHROMIUM_WS_ENDPOINT: the test runtime starts one for the
 * browser files, launchChromiumServer below), a fresh context of that browser instead: a context is
 * as empty and as separate from the others as a new profile, and a launch costs about a CPU-second.
 */
export async function launchChromium(
  options: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<LaunchedBrowser> {
  requireChromium();
  const contextOptions = {
    viewport: options.viewport ?? { width: 1280, height: 800 },
    colorScheme: options.colorScheme ?? ('light' as const),
    locale: 'en-GB',
    timezoneId: 'UTC',
  };
  const server = process.env.CHROMIUM_WS_ENDPOINT;
  if (server) {
    const browser = await chromium.connect(server);
    const context = await browser.newContext(contextOptions);
    return {
      context,
      browser,
      close: async () => {
        await context.close().catch(() => undefined);
        // A connected browser's close() disconnects; the server's browser runs on for the next file.
        await browser.close().catch(() => undefined);
      },
    };
  }
  const profile = mkdtempSync(join(tmpdir(), 'model-ops-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...contextOptions,
  });
  return {
    context,
    browser: context.browser(),
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** One Chromium that processes connect to (launchChromium with CHROMIUM_WS_ENDPOINT), its socket on loopback. */
export async function launchChromiumServer(): Promise<BrowserServer> {
  requireChromium();
  return chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: ARGS, host: '127.0.0.1' });
}

/**
 * A browser whose contexts are each a fresh, empty profile (playwright gives every launch a temporary
 * user-data-dir of its own): for measuring first loads with nothing cached.
 */
export async function launchBrowser(): Promise<Browser> {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
