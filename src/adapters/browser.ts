import { spawn } from 'node:child_process';

import { OperationalError } from '../core/errors.js';
import { resolveExecutable } from './which.js';

// Opening a file in the person's default browser: `open` on macOS, `xdg-open` elsewhere. Started
// detached, so the browser outlives this command; a failure it reports at once is said in words.

/** How long the opener is given to report a failure before it is left to run on its own. */
const ANSWER_MS = 3000;

export async function openInBrowser(
  file: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<void> {
  const command = platform === 'darwin' ? 'open' : 'xdg-open';
  const yourself = `open ${file} in a browser yourself`;
  const bin = resolveExecutable(command, env.PATH ?? '');
  if (!bin) throw new OperationalError(`cannot open the digest: ${command} is not on PATH; ${yourself}`);
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
  if (code === 'error')
    throw new OperationalError(`cannot open the digest: ${bin} could not be started; ${yourself}`);
  if (typeof code === 'number' && code !== 0)
    throw new OperationalError(
      `${command} could not open the digest (it exited with status ${code}); ${yourself}`,
    );
}
