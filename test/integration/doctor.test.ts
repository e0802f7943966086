import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { runBriefly } from '../../src/adapters/doctor-facts.js';
import type { Io } from '../../src/app/io.js';
import { doctorCommand } from '../../src/commands/doctor.js';
import type { CheckResult } from '../../src/core/doctor/checks.js';
import { cronBlock, editCrontab } from '../../src/core/schedule/cron.js';
import { FAKE_CLAUDE, REPO } from '../helpers/harness.js';

// doctor called directly, in a temp HOME / OVERNIGHT_HOME / XDG_CONFIG_HOME, with a fake Io.

const REAL_CLAUDE = join(REPO, 'node_modules', '.bin', 'claude');

interface Report {
  asScheduler: boolean;
  environment?: Record<string, string>;
  checks: CheckResult[];
  summary: { ok: number; warnings: number; problems: number };
}

describe('doctor', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'overnight-doctor-'));
    const home = join(dir, 'home');
    mkdirSync(home);
    // Nothing from the machine's environment but PATH: no token, no IS_SANDBOX, no OVERNIGHT_*.
    env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      USER: 'tester',
      OVERNIGHT_HOME: join(dir, 'runs'),
      XDG_CONFIG_HOME: join(home, '.config'),
      OVERNIGHT_CLAUDE: FAKE_CLAUDE,
      // The schedule's entries are looked for in a crontab of the test's own.
      OVERNIGHT_CRONTAB_CMD: join(REPO, 'test', 'fixtures', 'fake-crontab.sh'),
      FAKE_CRONTAB_FILE: join(dir, 'crontab'),
    };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const doctor = async (opts: { json?: boolean; asScheduler?: boolean } = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: Io = { stdout: (l) => out.push(l), stderr: (l) => err.push(l), env, now: () => new Date() };
    const code = await doctorCommand(opts, io);
    return { code, out, err };
  };
  const report = async (opts: { asScheduler?: boolean } = {}) => {
    const r = await doctor({ ...opts, json: true });
    const parsed = JSON.parse(r.out.join('\n')) as Report;
    return {
      code: r.code,
      report: parsed,
      check: (name: string) => parsed.checks.find((c) => c.name === name) as CheckResult,
    };
  };

  it('with the fake agent: exit 0, nothing worse than warnings', async () => {
    const { code, out, err } = await doctor();
    expect(err).toEqual([]);
    expect(out.join('\n')).not.toMatch(/^problem/m);
    expect(code).toBe(0);
    expect(out[0]).toMatch(
      /^ok {7}agent +0\.0\.0-fake \(Claude Code\) at .*fake-claude\.mjs; accepts every flag overnight passes$/,
    );
    // Runs root not created yet, no schedule, no token in this environment: warnings with their fix.
    expect(out.join('\n')).toMatch(
      /^warning +schedule +no schedule installed.*\n +fix: overnight schedule install$/m,
    );
    expect(out.join('\n')).toMatch(/^warning +credentials .*\n +fix: run `claude setup-token`/m);
    expect(out.at(-1)).toMatch(/^No problems, \d+ warnings?\.$/);
  });

  it('--json: every check once, with a summary matching them', async () => {
    mkdirSync(env.OVERNIGHT_HOME as string, { mode: 0o700 });
    const { code, report: r, check } = await report();
    expect(code).toBe(0);
    expect(r.checks.map((c) => c.name)).toEqual([
      'agent',
      'tmux',
      'node',
      'schedule',
      'passes',
      'credentials',
      'permissions',
      'extra usage',
      'sandbox',
      'verify',
      'runs root',
      'filesystem',
      'free space',
      'config',
      'notify',
    ]);
    for (const c of r.checks) expect(c.fix === undefined, c.name).toBe(c.status === 'ok');
    expect(r.summary.ok + r.summary.warnings).toBe(r.checks.length);
    expect(check('runs root')).toMatchObject({ status: 'ok', detail: `${env.OVERNIGHT_HOME} (0700)` });
    expect(check('tmux').status).toBe('ok');
    expect(check('extra usage').detail).toMatch(/^allow_overage is off: /);
    expect(check('config').detail).toMatch(/^no .*config\.yaml: defaults/);
  });

  it('without the agent binary: exit 1 and a problem naming it, with a fix', async () => {
    env.OVERNIGHT_CLAUDE = '/nonexistent';
    const { code, out } = await doctor();
    expect(code).toBe(1);
    expect(out[0]).toBe('problem  agent        "/nonexistent" does not exist or is not executable');
    expect(out[1]).toMatch(/^ {22}fix: install Claude Code .*OVERNIGHT_CLAUDE/);
    expect(out.at(-1)).toMatch(/^1 problem/);
  });

  it('--as-scheduler: a claude only the interactive PATH has is missing, until the entry sets that PATH', async () => {
    const bin = join(dir, 'shell-bin');
    mkdirSync(bin);
    symlinkSync(FAKE_CLAUDE, join(bin, 'claude'));
    delete env.OVERNIGHT_CLAUDE;
    env.PATH = `${bin}:${env.PATH}`;
    env.ANTHROPIC_API_KEY = 'sk-test';

    const shell = await report();
    expect(shell.check('agent')).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining(join(bin, 'claude')),
    });

    const cron = await report({ asScheduler: true });
    expect(cron.code).toBe(1);
    expect(cron.report.environment).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: env.HOME,
      USER: 'tester',
      LOGNAME: 'tester',
      OVERNIGHT_HOME: env.OVERNIGHT_HOME,
    });
    expect(cron.check('agent')).toEqual({
      name: 'agent',
      status: 'problem',
      detail: `"claude" is not on the scheduler's PATH (/usr/bin:/bin)`,
      fix: `your shell finds ${join(bin, 'claude')}: run \`overnight schedule install\` again so the entry's PATH holds its directory, or set claude: ${join(bin, 'claude')} in config.yaml`,
    });
    // The token is not in cron's environment, but runs launched from this shell keep it.
    expect(cron.check('credentials')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/in this shell, not in the scheduler's environment/),
    });

    // The text report says which environment it checked.
    const text = await doctor({ asScheduler: true });
    expect(text.out[0]).toBe(
      `As the scheduler would run it: PATH=/usr/bin:/bin HOME=${env.HOME} USER=tester LOGNAME=tester OVERNIGHT_HOME=${env.OVERNIGHT_HOME}`,
    );

    // An installed entry whose PATH holds that directory, with a recent pass: all is well there.
    mkdirSync(env.OVERNIGHT_HOME as string, { mode: 0o700 });
    const now = new Date();
    writeFileSync(
      join(env.OVERNIGHT_HOME as string, '.schedule.json'),
      JSON.stringify({
        backend: 'cron',
        everySeconds: 60,
        installedAt: now.toISOString(),
        path: `${bin}:/usr/bin:/bin`,
      }),
    );
    const entry = { node: process.execPath, cli: '/x/overnight.js', defaultRoot: false, extraEnv: [] };
    const block = cronBlock({
      ...entry,
      runsRoot: env.OVERNIGHT_HOME as string,
      path: `${bin}:/usr/bin:/bin`,
      everySeconds: 60,
    });
    writeFileSync(env.FAKE_CRONTAB_FILE as string, editCrontab('', block, env.OVERNIGHT_HOME as string));
    writeFileSync(
      join(env.OVERNIGHT_HOME as string, '.heartbeat.json'),
      JSON.stringify({
        at: now.toISOString(),
        scheduledAt: now.toISOString(),
        durationMs: 5,
        runs: 0,
        actions: 0,
      }),
    );
    const installed = await report({ asScheduler: true });
    expect(installed.check('agent').status).toBe('ok');
    expect(installed.check('schedule')).toMatchObject({
      status: 'ok',
      detail: expect.stringMatching(/^cron every 1m; the last scheduled pass ran/),
    });
    expect(installed.code).toBe(0);

    // An entry whose PATH finds the agent but not the node its `#!/usr/bin/env node` needs.
    writeFileSync(
      join(env.OVERNIGHT_HOME as string, '.schedule.json'),
      JSON.stringify({ backend: 'cron', everySeconds: 60, installedAt: now.toISOString(), path: bin }),
    );
    const noNode = await report({ asScheduler: true });
    expect(noNode.code).toBe(1);
    expect(noNode.check('agent')).toMatchObject({
      status: 'problem',
      detail: expect.stringMatching(/--version failed \(exit 127: .*node/),
      fix: expect.stringMatching(/interpreter/),
    });
  });

  it('a bad config file is a problem', async () => {
    mkdirSync(join(env.XDG_CONFIG_HOME as string, 'overnight'), { recursive: true });
    writeFileSync(join(env.XDG_CONFIG_HOME as string, 'overnight', 'config.yaml'), 'stale_after: soon\n');
    const { code, check } = await report();
    expect(code).toBe(1);
    expect(check('config')).toMatchObject({
      status: 'problem',
      detail: expect.stringMatching(/stale_after = "soon" is not valid/),
    });
  });

  it('with the real pinned CLI: its --help accepts every flag overnight passes', async () => {
    env.OVERNIGHT_CLAUDE = REAL_CLAUDE;
    const { check } = await report();
    expect(check('agent')).toEqual({
      name: 'agent',
      status: 'ok',
      detail: expect.stringMatching(/^2\.1\.\d+ \(Claude Code\) at .*; accepts every flag overnight passes$/),
    });
  });

  it('short commands: a deadline, and a binary that cannot start, are failures with a reason', async () => {
    const slow = await runBriefly('/bin/sh', ['-c', 'sleep 5'], { PATH: '/usr/bin:/bin' }, 200);
    expect(slow).toMatchObject({ exitCode: null, error: 'no answer within 0.2 s' });
    const absent = await runBriefly(join(dir, 'nothing'), ['--version'], { PATH: '/usr/bin:/bin' });
    expect(absent.exitCode).toBeNull();
    expect(absent.error).toMatch(/ENOENT/);
  });
});
