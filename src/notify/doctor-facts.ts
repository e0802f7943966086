import { accessSync, constants, statSync } from 'node:fs';

import { resolveExecutable } from '../adapters/which.js';
import type { NotifyTargetFacts } from '../core/doctor/notify.js';
import { localTime } from '../core/local-time.js';
import { testEvent } from '../core/notify/events.js';
import { desktopCall } from '../core/notify/format.js';
import type { NotifyTarget } from '../core/notify/targets.js';

// What `doctor` needs to know of each target: its program there and executable, the desktop's
// notifier on the PATH passes get, and the values of the variables it names.

export function notifyFacts(
  targets: readonly NotifyTarget[],
  env: Record<string, string | undefined>,
  launchEnv: Record<string, string | undefined>,
  platform: string,
): NotifyTargetFacts[] {
  return targets.map((target) => {
    const facts: NotifyTargetFacts = { target, vars: launchEnv };
    if (target.kind === 'command') facts.command = commandState(target.command);
    if (target.kind === 'desktop') {
      const call = desktopCall(platform, testEvent(new Date(0), ''), localTime('UTC'));
      facts.notifier = call
        ? { name: call.program, path: resolveExecutable(call.program, env.PATH ?? '') }
        : null;
    }
    return facts;
  });
}

function commandState(path: string): NotifyTargetFacts['command'] {
  try {
    if (!statSync(path).isFile()) return 'not-a-file';
  } catch {
    return 'missing';
  }
  try {
    accessSync(path, constants.X_OK);
    return 'ok';
  } catch {
    return 'not-executable';
  }
}
