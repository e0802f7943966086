// Whether this machine can confine a run: Claude Code's sandbox for the agent's commands (bubblewrap
// and socat on Linux, Seatbelt on macOS) and bubblewrap for the check. From facts the adapter
// gathers; each reason carries its fix. Pure.

export interface SandboxFacts {
  platform: string;
  /** Absolute paths found on the launch environment's PATH, or null. */
  bwrap: string | null;
  socat: string | null;
  /** macOS's sandbox-exec (Seatbelt), or null. */
  sandboxExec: string | null;
  /** What a trial run of bubblewrap said when it failed (user namespaces refused, …); null when it ran. */
  bwrapError: string | null;
}

export type Availability = { ok: true } | { ok: false; why: string; fix: string };

const LINUX_FIX = 'install them (apt-get install bubblewrap socat, or dnf install bubblewrap socat)';
const USERNS_FIX =
  'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and ' +
  'later, an AppArmor profile for bwrap or kernel.apparmor_restrict_unprivileged_userns=0)';

/** Claude Code's sandbox for the agent's commands. */
export function agentSandbox(f: SandboxFacts): Availability {
  if (f.platform === 'darwin')
    return f.sandboxExec
      ? { ok: true }
      : {
          ok: false,
          why: 'sandbox-exec (Seatbelt) is missing',
          fix: 'use a macOS that has /usr/bin/sandbox-exec',
        };
  if (f.platform !== 'linux')
    return {
      ok: false,
      why: `Claude Code has no sandbox on ${f.platform}`,
      fix: 'run overnight on Linux (or WSL2) or macOS to confine the agent',
    };
  const missing = [f.bwrap ? null : 'bubblewrap (bwrap)', f.socat ? null : 'socat'].filter((m) => m !== null);
  if (missing.length > 0)
    return { ok: false, why: `${missing.join(' and ')} not found on PATH`, fix: LINUX_FIX };
  if (f.bwrapError)
    return { ok: false, why: `bubblewrap cannot start here (${f.bwrapError})`, fix: USERNS_FIX };
  return { ok: true };
}

/** bubblewrap for the check and the launch probe (Linux only). */
export function checkSandbox(f: SandboxFacts): Availability {
  if (f.platform !== 'linux')
    return {
      ok: false,
      why: `overnight confines the check with bubblewrap, which ${f.platform} does not have`,
      fix: 'set verify_unconfined: true to run the check as you, unconfined',
    };
  if (!f.bwrap) return { ok: false, why: 'bubblewrap (bwrap) not found on PATH', fix: LINUX_FIX };
  if (f.bwrapError)
    return { ok: false, why: `bubblewrap cannot start here (${f.bwrapError})`, fix: USERNS_FIX };
  return { ok: true };
}
