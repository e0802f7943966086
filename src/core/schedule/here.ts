import type { Backend } from './cron.js';

// Which scheduler can run `overnight reconcile` on this machine, and what to say when the one
// asked for cannot: only what can work here is suggested, with what runs without a schedule.

/** The schedulers this machine offers, as found (the user's crontab command, a systemd user manager). */
export interface SchedulersHere {
  /** macOS: launchd is always there. */
  darwin: boolean;
  crontab: boolean;
  /** `systemctl --user` answers (no user bus in most containers and some SSH sessions). */
  systemdUser: boolean;
}

/** What goes on without a schedule, and what does not: said wherever one is missing. */
export const WITHOUT_SCHEDULE =
  "an agent's exit still starts a pass (a crash is resumed within seconds) and each run's timers " +
  'end its waits and its night on time, but nothing resumes a run after a reboot, and a hang or a ' +
  'killed wrapper is found only at the end time';

const INSTALL_CRON = 'install cron (apt-get install cron on Debian and Ubuntu, dnf install cronie on Fedora)';

/** Whether `backend` can be installed here. */
export function canInstall(backend: Backend, here: SchedulersHere): boolean {
  if (backend === 'launchd') return here.darwin;
  return backend === 'cron' ? here.crontab : here.systemdUser;
}

/** The first scheduler that works here, as `schedule install` picks it; null when none does. */
export function schedulerHere(here: SchedulersHere): Backend | null {
  if (here.darwin) return 'launchd';
  if (here.systemdUser) return 'systemd';
  return here.crontab ? 'cron' : null;
}

/** How to get a schedule when none can be installed here. */
export function noSchedulerFix(cmd: string): string {
  return `${INSTALL_CRON}, then run \`${cmd} schedule install\``;
}

/**
 * Why `backend` cannot be installed here, what to do instead (only what works here) and what runs
 * meanwhile; null when it can be. `chosen`: the person named it (`--backend`); else it was the
 * default, picked because nothing before it works.
 */
export function schedulerProblem(
  backend: Backend,
  chosen: boolean,
  here: SchedulersHere,
  cmd: string,
): string | null {
  if (canInstall(backend, here)) return null;
  const noCrontab = 'the crontab command was not found';
  const noUserManager = 'systemd has no user manager here (`systemctl --user` does not answer)';
  const why =
    backend === 'cron' ? (chosen ? noCrontab : `${noCrontab}, and ${noUserManager}`) : noUserManager;
  const works = schedulerHere(here);
  const instead = works
    ? `run \`${cmd} schedule install --backend ${works}\``
    : `${INSTALL_CRON} and run \`${cmd} schedule install\` again`;
  return `${why}: ${instead}. Nothing was installed. Without a schedule, ${WITHOUT_SCHEDULE}.`;
}
