import { readSupervision } from '../adapters/supervision.js';
import { checkCredentials } from '../core/doctor/checks.js';
import { supervisionWarning } from '../core/status/supervision.js';
import type { Io } from './io.js';

// What `launch` and `continue` say before the person goes to bed: nothing will supervise the run,
// or the environment it keeps all night holds no credential meant for unattended use.

export function nightWarnings(
  io: Io,
  root: string,
  now: Date,
): { supervision: string | null; schedule: string | null; warnings: string[] } {
  const { schedule, lastScheduledAt } = readSupervision(root);
  const supervision = supervisionWarning(schedule, lastScheduledAt, 1, now, io.cmd);
  const credentials = checkCredentials(io.env, { asScheduler: false });
  return {
    supervision,
    schedule: schedule?.backend ?? null,
    warnings: [
      ...(supervision ? [supervision] : []),
      ...(credentials.status === 'ok' ? [] : [`warning: ${credentials.detail}.\n  fix: ${credentials.fix}.`]),
    ],
  };
}
