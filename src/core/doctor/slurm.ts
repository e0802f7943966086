import { clusterFix, noClusterHere, type SlurmConf } from '../slurm/cluster.js';
import type { SlurmState } from '../slurm/jobs.js';
import { firstLine, runFailure, type CheckResult, type CommandRun } from './checks.js';

// Doctor checks for the Slurm backend: the commands, the controller, munge, and a tiny test job
// that proves the runs root is visible (and writable) from a node. Pure: the facts are gathered by
// adapters/slurm-doctor.

export const SLURM_COMMANDS = ['sbatch', 'squeue', 'scancel'] as const;

export interface SlurmFacts {
  /** The config chooses the slurm backend; otherwise nothing is gathered, and no row shown. */
  wanted: boolean;
  commands: { name: string; resolved: string | null }[];
  /** slurm.conf, where Slurm's commands look for it. */
  conf?: SlurmConf;
  /** `sbatch --version`. */
  version?: CommandRun;
  /** `scontrol ping`. */
  ping?: CommandRun;
  munge?: MungeFacts;
  testJob?: TestJobFacts;
}

export interface MungeFacts {
  /** The key munged reads on this machine (it must be the same on every node). */
  key: string;
  /** null: its directory is not this user's to look into (munged's own, mode 0700). */
  keyExists: boolean | null;
  /** `munge -n` (with slurm.conf's socket): munged made a credential with its key. */
  credential: CommandRun;
}

export interface TestJobFacts {
  root: string;
  submitted: { jobId: number } | { error: string };
  /** What the job wrote back into the runs root: the token doctor wrote there, then the node's name. */
  answer: string | null;
  token: string;
  /** The job's last state seen, and where it ran. */
  state: SlurmState | null;
  node: string | null;
  waitedSeconds: number;
}

const INSTALL = "install Slurm's client commands (Debian: apt-get install slurm-client) and put them on PATH";

/** sbatch, squeue, scancel. */
export function checkSlurmCommands(f: SlurmFacts): CheckResult[] {
  const name = 'slurm';
  const missing = f.commands.filter((c) => !c.resolved).map((c) => c.name);
  if (missing.length > 0)
    return [
      {
        name,
        status: 'problem',
        detail: `${missing.join(', ')} not on PATH (the config chooses backend slurm)`,
        fix: INSTALL,
      },
    ];
  const failure = f.version ? runFailure(f.version) : 'not run';
  const where = f.commands[0]?.resolved ?? '';
  // Installed, they answer nothing without a cluster to ask: that is said, not a reinstall.
  const none = f.conf ? noClusterHere(f.conf) : null;
  if (failure && none)
    return [
      {
        name,
        status: 'problem',
        detail: `Slurm's commands are installed (${where}), but ${none}: --version failed (${failure})`,
        fix: clusterFix('use the tmux or detached backend (backend: in config.yaml)'),
      },
    ];
  if (failure)
    return [
      {
        name,
        status: 'problem',
        detail: `${where} --version failed (${failure})`,
        fix: "check Slurm's configuration (SLURM_CONF, or /etc/slurm/slurm.conf) and that munged runs here",
      },
    ];
  return [
    { name, status: 'ok', detail: `${firstLine(f.version?.stdout ?? '')}: sbatch, squeue, scancel found` },
  ];
}

/** `scontrol ping`: `Slurmctld(primary) at head is UP`. */
export function checkSlurmController(f: SlurmFacts): CheckResult[] {
  if (!f.ping) return [];
  const name = 'slurm controller';
  const said = firstLine(f.ping.stdout);
  if (/ is UP\b/.test(f.ping.stdout)) return [{ name, status: 'ok', detail: said.slice(0, 200) }];
  const failure = runFailure(f.ping) ?? said;
  return [
    {
      name,
      status: 'problem',
      detail: `slurmctld does not answer (${failure.slice(0, 200) || 'no answer'})`,
      fix: 'check SLURM_CONF (or /etc/slurm/slurm.conf) names the controller, and that munged runs here',
    },
  ];
}

export function checkMunge(f: SlurmFacts): CheckResult[] {
  if (!f.munge) return [];
  const name = 'munge';
  const { key, keyExists, credential } = f.munge;
  const failure = runFailure(credential);
  const keyText =
    keyExists === null
      ? `key ${key} not visible to this user`
      : keyExists
        ? `key ${key}`
        : `no key at ${key}`;
  if (!failure) return [{ name, status: 'ok', detail: `munged makes credentials (${keyText})` }];
  return [
    {
      name,
      status: 'problem',
      detail: `munge -n failed (${failure}); ${keyText}`,
      fix:
        'start munged; this machine and every node need the same key (/etc/munge/munge.key, ' +
        'mode 0400, owned by munge)',
    },
  ];
}

/** Whether a node could read what this machine wrote in the runs root, and write back. */
export function checkNodeSeesRoot(f: SlurmFacts): CheckResult[] {
  const t = f.testJob;
  if (!t) return [];
  const name = 'slurm node';
  const shared = 'put the runs root on a filesystem every node mounts at the same path (NFSv4, Lustre, …)';
  if ('error' in t.submitted)
    return [
      {
        name,
        status: 'problem',
        detail: `the test job was refused: ${t.submitted.error.slice(0, 200)}`,
        fix: 'check slurm: partition, account and extra in config.yaml',
      },
    ];
  const [token, node] = (t.answer ?? '').split('\n');
  const on = node || t.node;
  if (token === t.token)
    return [
      {
        name,
        status: 'ok',
        detail: `a test job on ${on ?? 'a node'} read and wrote ${t.root} (${t.waitedSeconds} s)`,
      },
    ];
  if (t.answer !== null)
    return [
      { name, status: 'problem', detail: `the test job on ${on ?? 'a node'} read another file`, fix: shared },
    ];
  if (t.state === null || t.state === 'PENDING' || t.state === 'CONFIGURING')
    return [
      {
        name,
        status: 'warning',
        detail: `test job ${t.submitted.jobId} did not start within ${t.waitedSeconds} s (cancelled)`,
        fix: 'run doctor again when the partition is less busy, or choose another slurm: partition',
      },
    ];
  return [
    {
      name,
      status: 'problem',
      detail:
        `the test job ended ${t.state} on ${on ?? 'a node'} without reading ${t.root}: ` +
        'the runs root is not visible (or not writable) there',
      fix: shared,
    },
  ];
}

/** Every Slurm row; none unless the config chooses the slurm backend (a machine may have sbatch
 * installed for other work: its controller is none of tonight's business). */
export function checkSlurm(f: SlurmFacts): CheckResult[] {
  if (!f.wanted) return [];
  const commands = checkSlurmCommands(f);
  if (commands.length === 0 || commands[0]?.status !== 'ok') return commands;
  return [...commands, ...checkSlurmController(f), ...checkMunge(f), ...checkNodeSeesRoot(f)];
}

/** The munge socket slurm.conf names (`AuthInfo=socket=/path`), or null for munge's default. */
export function mungeSocketOf(slurmConf: string): string | null {
  const line = /^[ \t]*AuthInfo[ \t]*=[ \t]*(\S{1,4096})/im.exec(slurmConf);
  const socket = line?.[1]?.split(',').find((p) => p.startsWith('socket='));
  return socket ? socket.slice('socket='.length) || null : null;
}
