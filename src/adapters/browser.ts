import { spawn } from 'node:child_process';
import { hostname } from 'node:os';

import { openFailureMessage, type OpenFailure } from '../core/digest/opening.js';
import { OperationalError } from '../core/errors.js';
import { resolveExecutable } from './which.js';

// Opening a file in the person's default browser: `open` on macOS, `xdg-open` elsewhere. Started
// detached, so the browser outlives this command; a failure it reports at once is said in words,
// with what the person can do instead (core/digest/opening.ts).

/** How long the opener is given to report a failure before it is left to run on its own. */
const ANSWER_MS = 3000;

export async function openInBrowser(
  file: string,
  env: NodeJS.ProcessEnv,
  cmd = 'overnight',
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  const opener = platform === 'darwin' ? 'open' : 'xdg-open';
  const fail = (failure: OpenFailure) =>
    new OperationalError(openFailureMessage(failure, { opener, page: file, host: hostname(), cmd }));
  // Detached, a browser without a display has nowhere to show the page (a text one has no terminal).
  if (platform !== 'darwin' && !env.DISPLAY && !env.WAYLAND_DISPLAY) throw fail({ kind: 'no-display' });
  const bin = resolveExecutable(opener, env.PATH ?? '');
  if (!bin) throw fail({ kind: 'no-opener' });
  const child = spawn(bin, [file], { detached: true, stdio: 'ignore', env });
  const code = await new Promise<number | string | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), ANSWER_MS);
    const settle = (v: number | string | null) => {
      clearTimeout(timer);
      resolve(v);
    };
    child.once('error', () => settle('error'));
    child.once('exit', (c, signal) => settle(c ?? signal));
  });
  child.unref();
  if (code === 'error') throw fail({ kind: 'no-start' });
  if (typeof code === 'number' && code !== 0) throw fail({ kind: 'exit', status: code });
}
