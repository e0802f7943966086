import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { scheduleCommand, type ScheduleAction, type ScheduleOptions } from '../../src/commands/schedule.js';
import { findCronBlock } from '../../src/core/schedule/cron.js';
import { runsHere } from '../helpers/ci.js';
import { makeSandbox, waitFor, type Sandbox } from '../helpers/harness.js';

// The real thing: the user's crontab and a running cron daemon (Debian's `cron`, which .ci/run
// installs and starts). A crashed run must be resumed by the scheduled pass alone, and uninstall
// must leave the user's other crontab lines exactly as they were. The original crontab is
// restored afterwards whatever happens.

const OTHER_LINES =
  '# overnight cron test: these lines must survive byte for byte\n\n59 23 31 12 *  true   # an inert job\n';

async function cronRunning(): Promise<boolean> {
  return (await execa('pgrep', ['-x', 'cron'], { reject: false })).exitCode === 0;
}

/** The crontab as stored, or null when the user has none. */
async function readCrontab(): Promise<string | null> {
  const r = await execa('crontab', ['-l'], { reject: false, stripFinalNewline: false });
  if (r.exitCode === 0) return String(r.stdout);
  if (/no crontab/i.test(String(r.stderr))) return null;
  throw new Error(`crontab -l failed: ${String(r.stderr)}`);
}

async function writeCrontab(text: string | null): Promise<void> {
  if (text === null) await execa('crontab', ['-r'], { reject: false });
  else await execa('crontab', ['-'], { input: text });
}

// It edits the real user's crontab: it runs in CI (which starts a cron daemon for it) or when
// asked for with OVERNIGHT_TEST_CRON=1, never by surprise on a developer's machine.
const WANTED = runsHere(process.env.OVERNIGHT_TEST_CRON === '1');

describe.runIf(WANTED)('schedule install with a real cron daemon', () => {
  let sb: Sandbox | undefined;
  let original: string | null | undefined;

  beforeAll(async () => {
    if (!(await cronRunning())) {
      const where =
        process.env.CI === 'true' ? 'CI must install and start it (.ci/run)' : 'this test needs one';
      throw new Error(
        `no cron daemon is running (pgrep -x cron found none); ${where}: apt-get install -y cron && cron`,
      );
    }
    original = await readCrontab();
    // Even if the run is interrupted (Ctrl-C, a killed worker), the user's crontab comes back.
    const restore = () => {
      if (original === undefined) return;
      if (original === null) spawnSync('crontab', ['-r']);
      else spawnSync('crontab', ['-'], { input: original });
    };
    process.once('exit', restore);
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => (restore(), process.exit(130)));
  });

  afterAll(async () => {
    if (original !== undefined) await writeCrontab(original);
    await sb?.cleanup();
  });

  it(
    'a crashed run is resumed by the scheduled pass alone; uninstall leaves the other lines untouched',
    { timeout: 240_000 },
    async () => {
      const before = (original ?? '') + OTHER_LINES;
      await writeCrontab(before);

      const s = makeSandbox();
      sb = s;
      s.setBehaviour({ work: 600 });
      const { id } = await s.launch('Be resumed by cron', ['--duration', '1h']);
      // The wrapper's own pass bows out to a (fake) lock; then nothing but cron runs a pass.
      await s.crashUnderLock(id);
      s.releaseLock();
      expect(s.calls()).toHaveLength(1);

      // cron starts jobs with HOME from the password file and no TMUX_TMPDIR: the sandbox's own
      // tmux server and config directory reach the pass through the test-only extra environment.
      const extra = ['TMUX_TMPDIR', 'HOME', 'XDG_CONFIG_HOME'].map((k) => `${k}=${s.env[k]}`).join(' ');
      const schedule = async (action: ScheduleAction, opts: ScheduleOptions) => {
        const out: string[] = [];
        const io = {
          stdout: (l: string) => out.push(l),
          stderr: (l: string) => out.push(l),
          env: { ...s.env, OVERNIGHT_SCHEDULE_EXTRA_ENV: extra },
          now: () => new Date(),
        };
        const code = await scheduleCommand(action, opts, io);
        return { code, output: out.join('\n') };
      };
      const installed = await schedule('install', { every: '1m', backend: 'cron' });
      expect(installed.code, installed.output).toBe(0);
      const table = (await readCrontab()) as string;
      expect(table.startsWith(before)).toBe(true);
      const block = findCronBlock(table, s.runs);
      expect(block?.line).toMatch(
        /^\*\/1 \* \* \* \* PATH=\S+ OVERNIGHT_HOME=\S+ TMUX_TMPDIR=\S+ HOME=\S+ XDG_CONFIG_HOME=\S+ \/\S+ \/\S+\/bin\/overnight\.js reconcile --scheduled >> \S+\/reconcile\.log 2>&1$/,
      );

      const pid2 = await waitFor(() => s.read(s.state(id, 'agent-2.pid')), {
        timeout: 150_000,
        interval: 1_000,
        what: 'a second session started by the cron pass',
      });
      expect(Number(pid2.split(' ')[0])).toBeGreaterThan(0);
      await waitFor(() => s.calls().length === 2, { what: 'the resumed agent' });
      expect(s.calls()[1]?.argv).toContain('--resume');
      expect(s.read(`${s.runs}/reconcile.log`)).toMatch(new RegExp(`${id}: resumed`));
      // The pass cron ran says so in the heartbeat: the proof doctor and status look for.
      // (written as the pass ends, a moment after it started the agent)
      await waitFor(
        () =>
          (JSON.parse(s.read(`${s.runs}/.heartbeat.json`) ?? '{}') as { scheduledAt?: string }).scheduledAt,
        { what: 'scheduledAt in the heartbeat' },
      );

      const removed = await schedule('uninstall', {});
      expect(removed.output).toContain('removed the cron entry');
      expect(await readCrontab()).toBe(before);
    },
  );
});
