import { localTime } from '../core/local-time.js';
import type { Outcome } from '../core/notify/delivery.js';
import { testEvent } from '../core/notify/events.js';
import { DESKTOP_VARS } from '../core/notify/format.js';
import { varsOf, type NotifyTarget } from '../core/notify/targets.js';
import { sendTo } from './send.js';

// `overnight notify test`: a test event to every target at once, and what each answered. The
// `${NAME}` values come from this shell, which is what a run launched from here would capture.

export interface TestResult {
  target: NotifyTarget;
  outcome: Outcome;
}

export async function testTargets(
  targets: readonly NotifyTarget[],
  env: Record<string, string | undefined>,
  now: Date,
  root: string,
  timeoutSeconds: number,
): Promise<TestResult[]> {
  const event = testEvent(now, root);
  return Promise.all(
    targets.map(async (target) => {
      const names = [...varsOf(target), ...(target.kind === 'desktop' ? DESKTOP_VARS : [])];
      const vars = Object.fromEntries(names.filter((n) => env[n] !== undefined).map((n) => [n, env[n]]));
      const outcome = await sendTo(target, event, {
        vars,
        // The values come from this shell: a variable missing is missing here, not in a run.
        varsFrom: 'this shell',
        env,
        timeoutMs: timeoutSeconds * 1000,
        clock: localTime(),
        platform: process.platform,
      });
      return { target, outcome };
    }),
  );
}
