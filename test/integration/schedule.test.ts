import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect } from 'vitest';

import { resolveExecutable } from '../../src/adapters/which.js';
import { scheduleCommand, type ScheduleAction, type ScheduleOptions } from '../../src/commands/schedule.js';
import { findCronBlock } from '../../src/core/schedule/cron.js';
import { BIN, FAKE_CLAUDE, REPO, type Sandbox } from '../helpers/harness.js';
import { test } from '../helpers/sandbox.js';

// `overnight schedule` against a fake crontab (and a fake systemctl): what is written, where,
// and that the user's other lines come back byte for byte. scheduleCommand is called directly.

const FAKE_CRONTAB = join(REPO, 'test', 'fixtures', 'fake-crontab.sh');
const MINE =
  '# my own jobs\nMAILTO=""\n\n0 3 * * *   /usr/bin/backup --all  \n\n# keep this comment\n*/15 * * * * /usr/bin/true';

interface Schedule {
  /** The fake crontab's file: the user's crontab as `crontab -l` would list it. */
  table: string;
  /** `overnight schedule <action>` in the sandbox, with the fake crontab (and `extra` env). */
  schedule: (
    action: ScheduleAction,
    opts?: ScheduleOptions,
    extra?: Record<string, string | undefined>,
  ) => Promise<{ code: number; stdout: string; stderr: string }>;
  /** The crontab now, null when the user has none. */
  crontab: () => string | null;
  /** The runs root's schedule marker. */
  marker: () => { backend: string; everySeconds: number; installedAt: string };
}

const it = test.extend<Schedule>({
  table: async ({ sb }, use) => use(join(sb.dir, 'crontab')),
  schedule: async ({ sb, table }, use) => {
    const env = { ...sb.env, OVERNIGHT_CRONTAB_CMD: FAKE_CRONTAB, FAKE_CRONTAB_FILE: table };
    await use(async (action, opts = {}, extra = {}) => {
      const out: string[] = [];
      const err: string[] = [];
      const io = {
        stdout: (l: string) => out.push(l),
        stderr: (l: string) => err.push(l),
        env: { ...env, ...extra },
        now: () => new Date(),
      };
      const code = await scheduleCommand(action, opts, io);
      return { code, stdout: out.join('\n'), stderr: err.join('\n') };
    });
  },
  crontab: async ({ table }, use) => use(() => (existsSync(table) ? readFileSync(table, 'utf8') : null)),
  marker: async ({ sb }, use) =>
    use(
      () =>
        JSON.parse(readFileSync(join(sb.runs, '.schedule.json'), 'utf8')) as ReturnType<Schedule['marker']>,
    ),
});

describe('schedule (fake crontab)', () => {
  it('install writes one marked block with absolute paths, PATH and OVERNIGHT_HOME; twice is still one; uninstall restores the rest byte for byte', async ({
    sb,
    table,
    schedule,
    crontab,
    marker,
  }) => {
    writeFileSync(table, MINE);
    const first = await schedule('install', { backend: 'cron' });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`cron: \`overnight reconcile\` every 5m for ${sb.runs}`);

    const text = crontab() as string;
    expect(text.startsWith(MINE + '\n')).toBe(true);
    const block = findCronBlock(text, sb.runs);
    const line = block?.line as string;
    expect(block?.everySeconds).toBe(300);
    const tmux = resolveExecutable('tmux') as string;
    const path = [
      dirname(process.execPath),
      dirname(tmux),
      dirname(FAKE_CLAUDE),
      '/usr/local/bin',
      '/usr/bin',
      '/bin',
    ]
      .filter((d, i, all) => all.indexOf(d) === i)
      .join(':');
    expect(line).toBe(
      `*/5 * * * * PATH=${path} OVERNIGHT_HOME=${sb.runs} ${process.execPath} ${BIN} reconcile --scheduled >> ${sb.runs}/reconcile.log 2>&1`,
    );
    expect(marker()).toMatchObject({ backend: 'cron', everySeconds: 300 });

    const second = await schedule('install', { backend: 'cron' });
    expect(second.code).toBe(0);
    expect(crontab()).toBe(text);

    const removed = await schedule('uninstall');
    expect(removed.stdout).toContain(`removed the cron entry for ${sb.runs}`);
    expect(crontab()).toBe(MINE + '\n'); // the only byte added: the newline cron needs before a next line
    expect(existsSync(join(sb.runs, '.schedule.json'))).toBe(false);
    const again = await schedule('uninstall');
    expect(again.stdout).toContain('nothing to remove');
    expect(crontab()).toBe(MINE + '\n');
  });

  it('a changed interval replaces the entry; another runs root keeps its own block', async ({
    sb,
    table,
    schedule,
    crontab,
    marker,
  }) => {
    writeFileSync(table, MINE + '\n');
    const otherRoot = join(sb.dir, 'other-runs');
    expect((await schedule('install', { backend: 'cron' }, { OVERNIGHT_HOME: otherRoot })).code).toBe(0);
    expect((await schedule('install', { backend: 'cron', every: '5m' })).code).toBe(0);
    const r = await schedule('install', { backend: 'cron', every: '10m' });
    expect(r.stdout).toContain('every 10m');
    const text = crontab() as string;
    expect(text.match(/^# overnight schedule begin: /gm)).toHaveLength(2);
    expect(findCronBlock(text, sb.runs)?.everySeconds).toBe(600);
    expect(findCronBlock(text, sb.runs)?.line).toMatch(/^\*\/10 \* \* \* \* /);
    expect(findCronBlock(text, otherRoot)?.everySeconds).toBe(300);
    expect(marker()).toMatchObject({ backend: 'cron', everySeconds: 600 });

    await schedule('uninstall');
    expect(findCronBlock(crontab() as string, sb.runs)).toBeNull();
    await schedule('uninstall', {}, { OVERNIGHT_HOME: otherRoot });
    expect(crontab()).toBe(MINE + '\n');
  });

  it('a user with no crontab yet: install creates one, uninstall removes it again', async ({
    sb,
    schedule,
    crontab,
  }) => {
    expect((await schedule('install', { backend: 'cron', every: '1m' })).code).toBe(0);
    expect(findCronBlock(crontab() as string, sb.runs)?.line).toMatch(/^\*\/1 \* \* \* \* /);
    await schedule('uninstall');
    expect(crontab()).toBeNull();
  });

  it('status: the backend, its interval, the last pass, and warnings', async ({ sb, schedule }) => {
    let st = await schedule('status');
    expect(st.stdout).toContain('schedule:  none');
    expect(st.stdout).toMatch(/warning: no schedule is installed/);

    await schedule('install', { backend: 'cron', every: '2m' });
    st = await schedule('status');
    expect(st.stdout).toContain('schedule:  cron, every 2m (crontab)');
    expect(st.stdout).toContain('last pass: never');

    writeFileSync(
      join(sb.runs, '.heartbeat.json'),
      JSON.stringify({
        at: new Date(Date.now() - 90_000).toISOString(),
        scheduledAt: new Date(Date.now() - 90_000).toISOString(),
        durationMs: 120,
        runs: 3,
        actions: 1,
      }) + '\n',
    );
    st = await schedule('status');
    expect(st.stdout).toMatch(/last pass: 1m30s ago \(.*; took 120 ms, 3 runs, 1 action\)/);
    expect(st.stdout).not.toContain('warning');

    writeFileSync(
      join(sb.runs, '.heartbeat.json'),
      JSON.stringify({
        at: new Date(Date.now() - 600_000).toISOString(),
        scheduledAt: new Date(Date.now() - 600_000).toISOString(),
        durationMs: 5,
        runs: 0,
        actions: 0,
      }) + '\n',
    );
    const json = JSON.parse((await schedule('status', { json: true })).stdout) as {
      installed: boolean;
      entries: { backend: string; everySeconds: number }[];
      warnings: string[];
    };
    expect(json.installed).toBe(true);
    expect(json.entries).toEqual([{ backend: 'cron', everySeconds: 120, where: 'crontab' }]);
    expect(json.warnings.join('\n')).toMatch(/no scheduled pass for 10m, more than two intervals/);
  });

  it('refuses what it cannot write, naming the value, and changes nothing', async ({
    sb,
    table,
    schedule,
    crontab,
  }) => {
    writeFileSync(table, MINE);
    await expect(schedule('install', { backend: 'cron', every: '90s' })).rejects.toThrow(
      /--every 90s cannot be a cron interval/,
    );
    await expect(schedule('install', { backend: 'cron', every: 'soon' })).rejects.toThrow(
      /--every "soon" is not an interval/,
    );
    await expect(schedule('install', { backend: 'cronie' })).rejects.toThrow(
      /--backend "cronie" is not a backend; use one of cron, launchd, systemd/,
    );
    expect(crontab()).toBe(MINE);
    expect(existsSync(join(sb.runs, '.schedule.json'))).toBe(false);
  });

  it.skipIf(process.platform === 'darwin')(
    'refuses launchd off macOS (a usage error), and changes nothing',
    async ({ sb, table, schedule, crontab }) => {
      writeFileSync(table, MINE);
      await expect(schedule('install', { backend: 'launchd' })).rejects.toMatchObject({ exitCode: 2 });
      expect(crontab()).toBe(MINE);
      expect(existsSync(join(sb.runs, '.schedule.json'))).toBe(false);
    },
  );

  describe.skipIf(process.platform === 'darwin')('systemd (a fake systemctl)', () => {
    /**
     * A systemctl that logs its arguments; `show-environment` answers as a user manager would, or
     * not; `failing` (e.g. `daemon-reload`) fails as it does without a user bus.
     */
    const fakeSystemctl = (sb: Sandbox, userManager: boolean, failing?: string) => {
      const bin = join(sb.dir, 'bin');
      const script = join(bin, 'systemctl');
      mkdirSync(bin, { recursive: true });
      const fail = failing
        ? `[ "$2" = ${failing} ] && { echo 'Failed to connect to bus: No medium found' >&2; exit 1; }\n`
        : '';
      writeFileSync(
        script,
        `#!/bin/sh\necho "$*" >> "${join(sb.dir, 'systemctl.log')}"\n${fail}[ "$2" = show-environment ] && exit ${userManager ? 0 : 1}\nexit 0\n`,
      );
      chmodSync(script, 0o755);
      return { PATH: `${bin}:${sb.env.PATH}` };
    };
    const calls = (sb: Sandbox) =>
      existsSync(join(sb.dir, 'systemctl.log'))
        ? readFileSync(join(sb.dir, 'systemctl.log'), 'utf8').trim().split('\n')
        : [];

    it('is the default where a user manager answers: units written, enabled and started; uninstall removes them', async ({
      sb,
      schedule,
      crontab,
      marker,
    }) => {
      const path = fakeSystemctl(sb, true);
      const r = await schedule('install', { every: '3m' }, path);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('loginctl enable-linger');
      const dir = join(sb.env.XDG_CONFIG_HOME as string, 'systemd', 'user');
      const unit = /^overnight-reconcile-[0-9a-f]{8}$/;
      const names = calls(sb)
        .find((c) => c.startsWith('--user enable --now '))
        ?.split(' ')
        .pop() as string;
      expect(names.replace(/\.timer$/, '')).toMatch(unit);
      const timer = readFileSync(join(dir, names), 'utf8');
      expect(timer).toContain('OnUnitActiveSec=180s');
      const service = readFileSync(join(dir, names.replace(/\.timer$/, '.service')), 'utf8');
      expect(service).toContain(`Environment=OVERNIGHT_HOME=${sb.runs}`);
      expect(service).toContain(`ExecStart=${process.execPath} ${BIN} reconcile`);
      expect(calls(sb).slice(0, 3)).toEqual([
        '--user show-environment',
        '--user daemon-reload',
        `--user enable --now ${names}`,
      ]);
      expect(marker()).toMatchObject({ backend: 'systemd', everySeconds: 180 });
      expect(crontab()).toBeNull(); // cron untouched

      const st = await schedule('status', {}, path);
      expect(st.stdout).toContain('schedule:  systemd, every 3m');
      await schedule('uninstall', {}, path);
      expect(existsSync(join(dir, names))).toBe(false);
      expect(existsSync(join(dir, names.replace(/\.timer$/, '.service')))).toBe(false);
      expect(calls(sb)).toContain(`--user disable --now ${names}`);
    });

    it.for([{ failing: 'daemon-reload' }, { failing: 'enable' }])(
      'a failed install ($failing fails) removes what it wrote: schedule status, status and doctor agree nothing is installed',
      async ({ failing }, { sb, schedule }) => {
        const path = fakeSystemctl(sb, true, failing);
        const dir = join(sb.env.XDG_CONFIG_HOME as string, 'systemd', 'user');
        await expect(schedule('install', { backend: 'systemd' }, path)).rejects.toThrow(
          new RegExp(
            `^systemctl --user ${failing}.* failed: Failed to connect to bus: No medium found; ` +
              'nothing was installed \\(what was written is removed again\\)$',
          ),
        );
        expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
        expect(existsSync(join(sb.runs, '.schedule.json'))).toBe(false);

        const st = await schedule('status', {}, path);
        expect(st.stdout).toContain('schedule:  none');
        expect(st.stdout).toContain('warning: no schedule is installed');
        sb.setBehaviour({ work: 60 });
        await sb.launch('Am I supervised?', ['--duration', '1h']);
        const status = await sb.run(['status'], { env: path });
        expect(status.stdout).toContain('warning: no schedule is installed');
        const doctor = await sb.run(['doctor'], { env: path });
        expect(doctor.stdout).toMatch(/^warning\s+schedule\s+no schedule installed/m);
      },
    );

    it('a failed reinstall puts the working one back as it was', async ({ sb, schedule, marker }) => {
      const dir = join(sb.env.XDG_CONFIG_HOME as string, 'systemd', 'user');
      expect(
        (await schedule('install', { backend: 'systemd', every: '5m' }, fakeSystemctl(sb, true))).code,
      ).toBe(0);
      const before = Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
      const failing = fakeSystemctl(sb, true, 'enable');
      await expect(schedule('install', { backend: 'systemd', every: '3m' }, failing)).rejects.toThrow(
        /nothing was installed/,
      );
      expect(
        Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')])),
      ).toEqual(before);
      expect(marker()).toMatchObject({ backend: 'systemd', everySeconds: 300 });
      expect((await schedule('status', {}, failing)).stdout).toContain('schedule:  systemd, every 5m');
    });

    it('an entry no install recorded is not called installed, by schedule status or doctor', async ({
      sb,
      schedule,
    }) => {
      const path = fakeSystemctl(sb, true);
      expect((await schedule('install', { backend: 'systemd' }, path)).code).toBe(0);
      rmSync(join(sb.runs, '.schedule.json'));
      const st = await schedule('status', {}, path);
      expect(st.stdout).toMatch(/^schedule: {2}systemd, every 5m \(.*, left over: not installed\)$/m);
      expect(st.stdout).toMatch(
        /warning: a systemd entry \(.*\) is left over from an install that did not finish/,
      );
      const doctor = await sb.run(['doctor'], { env: path });
      expect(doctor.stdout).toMatch(
        /^warning\s+schedule\s+no schedule installed: a systemd entry .* is left over/m,
      );
    });

    it('without a crontab or a user manager, install suggests only what works here, and says what runs meanwhile', async ({
      sb,
      schedule,
    }) => {
      // No crontab command at all, and a systemctl whose user manager does not answer.
      const none = { ...fakeSystemctl(sb, false), OVERNIGHT_CRONTAB_CMD: join(sb.dir, 'no-crontab') };
      const refused = schedule('install', {}, none);
      await expect(refused).rejects.toMatchObject({ exitCode: 1 });
      await expect(refused).rejects.toThrow(
        /^the crontab command was not found, and systemd has no user manager here .*: install cron \(apt-get install cron/,
      );
      await expect(refused).rejects.not.toThrow(/--backend systemd/);
      await expect(refused).rejects.toThrow(
        /Nothing was installed\. Without a schedule, an agent's exit still starts a pass/,
      );
      await expect(refused).rejects.toThrow(/nothing resumes a run after a reboot/);
      expect(existsSync(join(sb.runs, '.schedule.json'))).toBe(false);
      // Asked for systemd: the same, not a bus error.
      await expect(schedule('install', { backend: 'systemd' }, none)).rejects.toThrow(
        /^systemd has no user manager here .*: install cron/,
      );
      expect(calls(sb).filter((c) => !c.endsWith('show-environment'))).toEqual([]);
      // doctor's fix is the same way to a schedule.
      const doctor = await sb.run(['doctor'], { env: none });
      expect(doctor.stdout).toMatch(/^warning\s+schedule\s+no schedule installed, and no scheduler here/m);
      expect(doctor.stdout).toMatch(
        /install cron \(apt-get install cron .*\), then run `overnight schedule install`/,
      );
    });

    it('asked for systemd without a user manager where cron is, install names cron', async ({
      sb,
      schedule,
    }) => {
      await expect(schedule('install', { backend: 'systemd' }, fakeSystemctl(sb, false))).rejects.toThrow(
        /^systemd has no user manager here \(`systemctl --user` does not answer\): run `overnight schedule install --backend cron`\. Nothing was installed\./,
      );
    });

    it('falls back to cron without a user manager; switching backends leaves one entry', async ({
      sb,
      table,
      schedule,
      crontab,
      marker,
    }) => {
      writeFileSync(table, MINE);
      const r = await schedule('install', {}, fakeSystemctl(sb, false));
      expect(r.stdout).toContain('cron: ');
      expect(findCronBlock(crontab() as string, sb.runs)).not.toBeNull();
      const switched = await schedule('install', { backend: 'systemd' }, fakeSystemctl(sb, true));
      expect(switched.stdout).toContain('removed the cron entry');
      expect(crontab()).toBe(MINE + '\n');
      expect(marker().backend).toBe('systemd');
    });
  });
});
