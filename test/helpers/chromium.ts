/**
 * Headless Debian `chromium` for browser tests, driven by playwright-core
 * (no browser download: the system binary is used).
 *
 * Missing binary: `describeChromium()` throws when CI=true (CI must fail
 * loudly) and otherwise warns loudly and skips the file's tests.
 * Screenshots go to `test-artifacts/` (ignored by git, kept by CI's workspace).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { describe } from 'vitest';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** Path of the chromium binary (CHROMIUM_BIN overrides), or null. */
function findChromium(): string | null {
  const explicit = process.env.CHROMIUM_BIN;
  if (explicit !== undefined && explicit !== '') return existsSync(explicit) ? explicit : null;
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

/** `describe` when chromium is available, else `describe.skip`; throws in CI when missing. */
export function describeChromium(): typeof describe | typeof describe.skip {
  if (findChromium() !== null) return describe;
  const msg = 'chromium binary not found (apt-get install chromium, or set CHROMIUM_BIN)';
  if (process.env.CI === 'true') throw new Error(`${msg}: browser tests cannot be skipped in CI`);
  console.warn(`\n!!! ${msg}: SKIPPING the browser tests !!!\n`);
  return describe.skip;
}

/**
 * Launches headless chromium as root-safe and offline-quiet: without the
 * background-networking flags it keeps trying hosts this machine cannot reach.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === null) throw new Error('chromium not found');
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Where a test keeps its screenshots. */
export function artifactPath(name: string): string {
  const dir = join(process.cwd(), 'test-artifacts');
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** A page served from another origin than the proxy (CORS as a browser meets it): `html` for each request URL. */
export interface PageSite {
  /** `http://127.0.0.1:PORT` */
  url: string;
  close(): Promise<void>;
}

export async function servePage(html: (url: URL) => string): Promise<PageSite> {
  const server = createServer((req, res) => {
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(html(new URL(req.url ?? '/', 'http://page')));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
