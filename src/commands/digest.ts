import { resolve } from 'node:path';

import { openInBrowser } from '../adapters/browser.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import type { Io } from '../app/io.js';
import { settingsWithWarnings } from '../app/settings.js';
import { digestHtml } from '../core/digest/html.js';
import { summarize } from '../core/digest/summary.js';
import { digestText, summaryLine } from '../core/digest/text.js';
import { parseSince } from '../core/digest/window.js';
import { UsageError } from '../core/errors.js';
import { localTime } from '../core/local-time.js';
import { safeLine } from '../core/text.js';
import { defaultPage, writePage } from '../dashboard/page.js';
import { gatherDigest } from '../read/digest.js';

// `overnight digest [--since 24h] [--html <file>] [--open]`: the morning digest, as text or a page.

export interface DigestOptions {
  since?: string;
  html?: string;
  open?: boolean;
}

export async function digestCommand(opts: DigestOptions, io: Io): Promise<number> {
  const settings = await settingsWithWarnings(io);
  const root = settings.runsDir;
  usableRunsRoot(root, 'read');
  const now = io.now();
  const clock = localTime();
  const window = parseSince(opts.since ?? '24h', now, clock);
  if ('error' in window) throw new UsageError(window.error);
  const runs = await gatherDigest(window.since, { root, settings, io });
  const digest = { now, since: window.since, window: window.label, runs };
  if (opts.html === undefined && !opts.open) {
    for (const line of digestText(digest, clock)) io.stdout(line);
    return 0;
  }
  const file = opts.html === undefined ? defaultPage(root) : resolve(opts.html);
  writePage(file, digestHtml(digest, clock));
  io.stdout(safeLine(`${file}: ${summaryLine(summarize(runs))}`));
  if (opts.open) await openInBrowser(file, io.env, io.cmd);
  return 0;
}
