import type { Policy } from './policy.js';

// The check (and the launch probe) confined by bubblewrap, the tool Claude Code's own sandbox uses
// on Linux: the whole system read-only (/tmp too, as in Claude Code's), the runs root and the
// secrets hidden, only the policy's directories writable, TMPDIR the run's own temp directory, its
// own process and network namespaces. Pure: argv only.

export interface BwrapPlan {
  policy: Policy;
  /** Where the command starts (the agent's working directory). */
  cwd: string;
  /** Its TMPDIR: a writable directory of the policy's; null leaves TMPDIR as it is. */
  tmp: string | null;
  /** Which of the policy's paths exist, and as what: only those can be mounted. */
  kinds: ReadonlyMap<string, 'dir' | 'file'>;
}

type Mount = { path: string; args: string[] };

/**
 * bubblewrap's arguments up to `--`. Everything in the namespace dies with it (`--die-with-parent`,
 * its own pid namespace), so killing it ends every process the check started.
 */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const { policy, kinds } = plan;
  const args = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--new-session'];
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc');
  // No network unless domains are listed (then a proxy outside carries exactly those).
  if (policy.network.length === 0) args.push('--unshare-net');
  const mounts: Mount[] = [];
  for (const p of policy.denyRead) {
    const kind = kinds.get(p);
    if (kind === 'dir') mounts.push({ path: p, args: ['--tmpfs', p] });
    else if (kind === 'file') mounts.push({ path: p, args: ['--ro-bind', '/dev/null', p] });
  }
  for (const p of policy.allowRead)
    if (kinds.get(p) === 'dir' && !policy.write.includes(p))
      mounts.push({ path: p, args: ['--ro-bind', p, p] });
  for (const p of policy.write) if (kinds.get(p) === 'dir') mounts.push({ path: p, args: ['--bind', p, p] });
  // Shallow first: a deeper mount wins over the one it lies in, whichever hides or shows.
  mounts.sort((a, b) => depth(a.path) - depth(b.path) || order(a) - order(b));
  for (const m of mounts) args.push(...m.args);
  if (plan.tmp) args.push('--setenv', 'TMPDIR', plan.tmp);
  args.push('--chdir', plan.cwd);
  return args;
}

const depth = (p: string) => p.split('/').length;
/** At one path, what hides comes before what shows (a run's directory listed as both shows). */
const order = (m: Mount) =>
  m.args[0] === '--bind' ? 2 : m.args[0] === '--ro-bind' && m.args[1] !== '/dev/null' ? 1 : 0;

/** The policy's paths whose kind the adapter must look up (what exists is mounted). */
export function pathsToLook(policy: Policy): string[] {
  return [...new Set([...policy.denyRead, ...policy.allowRead, ...policy.write])];
}

/**
 * The check's own policy: the agent's, but writable only where it starts (the worktree, or a plain
 * run's directory) and the run's temp directory; the run's directory beside a worktree is hidden
 * like the rest.
 */
export function checkPolicy(agent: Policy, cwdTop: string, tmp: string): Policy {
  return { write: [cwdTop, tmp], denyRead: agent.denyRead, allowRead: [cwdTop, tmp], network: agent.network };
}
