/**
 * The browser tests' shared pieces: one Chromium per test file (console/scripts/chromium.ts) on the
 * console the test runtime serves through the local front door (E2E_CONSOLE_URL), the seeded
 * super_admin, and a record of anything the page reports that a person would not want: uncaught
 * errors and Content-Security-Policy violations. API calls for fixtures go straight to the API.
 */
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { launchChromium, type LaunchedBrowser } from '../../console/scripts/chromium';

export const CONSOLE = () => process.env.E2E_CONSOLE_URL as string;
export const ADMIN = () => ({ username: process.env.E2E_ADMIN_USERNAME as string, password: process.env.E2E_ADMIN_PASSWORD as string });
export const unique = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

export interface Browser extends LaunchedBrowser {
  page: Page;
  /** Page errors and CSP violations seen so far. */
  problems: string[];
}

async function openBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<Browser> {
  const launched = await launchChromium(options);
  await launched.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: CONSOLE() });
  const problems: string[] = [];
  launched.context.on('page', (page) => watch(page, problems));
  const page = launched.context.pages()[0] ?? (await launched.context.newPage());
  watch(page, problems);
  page.setDefaultTimeout(20_000);
  return { ...launched, page, problems };
}

/**
 * One browser for the test file: opened before its tests (and logged in as the seeded super_admin
 * when asked), closed after them; each test also fails if the page reported a problem. The returned
 * object is filled in by the time the tests run.
 */
export function browserPerFile(options: { loggedIn?: boolean } = {}): Browser {
  const session = {} as Browser;
  beforeAll(async () => {
    Object.assign(session, await openBrowser());
    if (options.loggedIn) await logIn(session.page, ADMIN().username, ADMIN().password);
  }, 60_000);
  afterAll(async () => {
    await session.close?.();
  });
  afterEach(() => {
    expect(session.problems).toEqual([]);
  });
  return session;
}

function watch(page: Page, problems: string[]) {
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    const text = message.text();
    if (/Content Security Policy|Trusted Type/i.test(text)) problems.push(`CSP: ${text}`);
  });
}

export async function logIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto(`${CONSOLE()}/`);
  await page.getByLabel('Username or e-mail').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

/** The API itself, for fixtures a test does not exercise through the console. */
export async function api<T = any>(method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`${CONSOLE()}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body ? { 'content-type': 'application/json' } : {}),
    },
    body: options.body ? JSON.stringify(options.body) : undefined,
  });
  const body = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

export async function apiToken(username: string, password: string): Promise<string> {
  return (await api<{ token: string }>('POST', '/api/auth/login', { body: { username, password } })).token;
}

export const mainNav = (page: Page) => page.getByRole('navigation', { name: 'Main' });
export const adminNav = (page: Page) => page.getByRole('navigation', { name: 'Admin' });

/** Chooses the option of a select that `option` finds, once the page has listed it (options are loaded, not rendered at once). */
export async function chooseOption(select: Locator, option: Locator): Promise<void> {
  await option.waitFor({ state: 'attached' });
  await select.selectOption({ label: (await option.textContent()) as string });
}

/** Starts a conversation on the Chat page with the resource whose option names `resource`; returns once it is open. */
export async function startConversation(page: Page, title: string, resource: string): Promise<void> {
  await mainNav(page).getByRole('link', { name: 'Chat' }).click();
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Use case').fill('browser test');
  const select = page.getByLabel('Resource');
  await chooseOption(select, select.locator('option', { hasText: resource }));
  await page.getByRole('button', { name: 'Start conversation' }).click();
  await page.getByRole('heading', { name: title, level: 2 }).waitFor();
}
