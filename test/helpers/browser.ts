// Headless Chromium for the HTML the CLI writes: the system's own chromium (Debian's package;
// `.ci/run` installs it), driven by playwright-core, with a fresh profile and nothing from the
// network. Tests fail, never skip, when it is missing.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

import { resolveExecutable } from '../../src/adapters/which.js';

/** `CHROMIUM` if set, else chromium (or chromium-browser) on PATH. */
export function chromiumPath(): string {
  const found =
    process.env.CHROMIUM ?? resolveExecutable('chromium') ?? resolveExecutable('chromium-browser');
  if (!found)
    throw new Error(
      'Chromium is missing: install it (apt-get install chromium; .ci/run does) or set CHROMIUM to its path',
    );
  return found;
}

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  /** A page of `file` as Chromium shows it, with what it asked for and complained about. */
  open(
    file: string,
    opts?: { width?: number; dark?: boolean },
  ): Promise<{ page: Page; requests: string[]; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'ovt-chromium-'));
  // A persistent context is the way to give Chromium its own empty profile; it is the browser here.
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: FLAGS,
    timeout: 30_000,
  });
  return {
    async open(file, { width = 1000, dark = false } = {}) {
      const page = await context.newPage();
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme: dark ? 'dark' : 'light' });
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') errors.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      return { page, requests, errors };
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Where screenshots go: OVERNIGHT_TEST_SCREENSHOTS (kept, to look at), else `fallback`. */
export function screenshotDir(fallback: string): string {
  const dir = process.env.OVERNIGHT_TEST_SCREENSHOTS ?? fallback;
  mkdirSync(dir, { recursive: true });
  return dir;
}
