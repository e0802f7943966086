import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

import {
  buildPath,
  cronBlock,
  cronTimeFields,
  editCrontab,
  findCronBlock,
  parseCronInterval,
  scheduleNames,
  shellQuote,
  type Backend,
  type ScheduleValues,
} from '../../src/core/schedule/cron.js';
import { exampleCrontab, examplePlist } from '../../src/core/schedule/examples.js';
import { schedulerProblem, type SchedulersHere } from '../../src/core/schedule/here.js';
import {
  launchdPlist,
  parsePlistInterval,
  parseTimerInterval,
  systemdUnits,
} from '../../src/core/schedule/units.js';

const REPO = join(import.meta.dirname, '..', '..');
const GOLDEN = join(REPO, 'test', 'fixtures', 'schedule');
// OVERNIGHT_UPDATE_GOLDEN=1 rewrites the golden files and the repository's examples from the code.
const UPDATE = process.env.OVERNIGHT_UPDATE_GOLDEN === '1';

function golden(file: string, actual: string): void {
  if (UPDATE) {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, actual);
  }
  expect(
    existsSync(file),
    `${file} is missing; run OVERNIGHT_UPDATE_GOLDEN=1 npx vitest run test/unit/schedule.test.ts`,
  ).toBe(true);
  expect(
    actual,
    `${file} differs from the generator; if the change is intended, run OVERNIGHT_UPDATE_GOLDEN=1 npx vitest run test/unit/schedule.test.ts`,
  ).toBe(readFileSync(file, 'utf8'));
}

const VALUES: ScheduleValues = {
  node: '/home/ann/.nvm/versions/node/v20.19.0/bin/node',
  cli: '/home/ann/.nvm/versions/node/v20.19.0/lib/node_modules/overnight/bin/overnight.js',
  runsRoot: '/home/ann/overnight-runs',
  defaultRoot: true,
  path: '/home/ann/.nvm/versions/node/v20.19.0/bin:/usr/local/bin:/usr/bin:/bin',
  everySeconds: 300,
};
/** A runs root that is not the default, with characters every format must escape. */
const ODD: ScheduleValues = {
  ...VALUES,
  runsRoot: "/srv/night runs/ann's 100%",
  defaultRoot: false,
  path: '/opt/node 20/bin:/usr/bin:/bin',
  node: '/opt/node 20/bin/node',
  everySeconds: 120,
};

describe('golden entries', () => {
  test.each<{ name: string; values: ScheduleValues }>([
    { name: 'default', values: VALUES },
    { name: 'odd', values: ODD },
  ])('$name root: crontab block, plist, service and timer', ({ name, values }) => {
    golden(join(GOLDEN, `${name}.crontab`), cronBlock(values) + '\n');
    golden(join(GOLDEN, `${name}.plist`), launchdPlist(values));
    const units = systemdUnits(values);
    golden(join(GOLDEN, `${name}.service`), units.service);
    golden(join(GOLDEN, `${name}.timer`), units.timer);
  });

  test('the cron line carries PATH and OVERNIGHT_HOME before the command and appends to the log', () => {
    const line = cronBlock({ ...VALUES, runsRoot: '/data/runs', defaultRoot: false }).split('\n')[2];
    expect(line).toBe(
      `*/5 * * * * PATH=${VALUES.path} OVERNIGHT_HOME=/data/runs ${VALUES.node} ${VALUES.cli} reconcile --scheduled >> /data/runs/reconcile.log 2>&1`,
    );
    expect(cronBlock(VALUES)).not.toContain('OVERNIGHT_HOME');
  });

  test('the plist and the service name OVERNIGHT_HOME only for a root that is not the default', () => {
    expect(launchdPlist(VALUES)).not.toContain('OVERNIGHT_HOME');
    expect(launchdPlist(ODD)).toContain('<key>OVERNIGHT_HOME</key>');
    expect(systemdUnits(VALUES).service).not.toContain('OVERNIGHT_HOME');
    expect(systemdUnits(ODD).service).toContain('Environment="OVERNIGHT_HOME=/srv/night runs/ann\'s 100%%"');
  });

  test('extra environment (tests only) follows PATH and OVERNIGHT_HOME', () => {
    const block = cronBlock({ ...ODD, extraEnv: [['TMUX_TMPDIR', '/tmp/t']] });
    expect(block).toMatch(
      / OVERNIGHT_HOME='\/srv\/night runs\/ann'\\''s 100\\%' TMUX_TMPDIR=\/tmp\/t '\/opt\/node 20\/bin\/node' /,
    );
    expect(() => cronBlock({ ...VALUES, extraEnv: [['not a name', 'x']] })).toThrow(
      /not an environment variable name/,
    );
  });

  test('a line break in any value is refused', () => {
    expect(() => cronBlock({ ...VALUES, runsRoot: '/a\nb' })).toThrow(/line break/);
    expect(() => launchdPlist({ ...VALUES, node: 'node' })).toThrow(/not an absolute path/);
  });

  test('each root has its own names; the default root keeps the plain ones', () => {
    expect(scheduleNames('/home/ann/overnight-runs', true)).toEqual({
      label: 'dev.overnight.reconcile',
      unit: 'overnight-reconcile',
      log: '/home/ann/overnight-runs/reconcile.log',
    });
    const a = scheduleNames('/data/a', false);
    const b = scheduleNames('/data/b', false);
    expect(a.label).toMatch(/^dev\.overnight\.reconcile\.[0-9a-f]{8}$/);
    expect(a.unit).toMatch(/^overnight-reconcile-[0-9a-f]{8}$/);
    expect(a.label).not.toBe(b.label);
    expect(scheduleNames('/data/a', false)).toEqual(a);
  });

  test.each<{ seconds: number }>([
    { seconds: 60 },
    { seconds: 300 },
    { seconds: 3540 },
    { seconds: 3600 },
    { seconds: 7200 },
    { seconds: 86400 },
  ])('every $seconds s reads back from the cron line written', ({ seconds }) => {
    expect(parseCronInterval(cronTimeFields(seconds) + ' cmd')).toBe(seconds);
  });

  test('intervals read back from what was written', () => {
    expect(parseCronInterval('* * * * * cmd')).toBe(60);
    expect(parseCronInterval('15 3 * * * cmd')).toBeNull();
    expect(parsePlistInterval(launchdPlist(ODD))).toBe(120);
    expect(parseTimerInterval(systemdUnits(ODD).timer)).toBe(120);
  });
});

describe('cron intervals', () => {
  test.each<{ seconds: number; want: string }>([
    { seconds: 60, want: '*/1 * * * *' },
    { seconds: 300, want: '*/5 * * * *' },
    { seconds: 59 * 60, want: '*/59 * * * *' },
    { seconds: 3600, want: '0 */1 * * *' },
    { seconds: 6 * 3600, want: '0 */6 * * *' },
    { seconds: 86400, want: '0 0 * * *' },
  ])('$seconds s → $want', ({ seconds, want }) => {
    expect(cronTimeFields(seconds)).toBe(want);
  });

  test.each<{ seconds: number; typed: string }>([
    { seconds: 30, typed: '30s' },
    { seconds: 90, typed: '90s' },
    { seconds: 150, typed: '2m30s' },
    { seconds: 5400, typed: '90m' },
    { seconds: 2 * 86400, typed: '2d' },
  ])('$seconds s is refused, naming the value $typed', ({ seconds, typed }) => {
    expect(() => cronTimeFields(seconds, typed)).toThrow(
      new RegExp(`--every ${typed} cannot be a cron interval.*whole minutes`),
    );
  });
});

describe('editCrontab', () => {
  const ROOT = VALUES.runsRoot;
  const block = cronBlock(VALUES);
  const block2 = cronBlock({ ...VALUES, everySeconds: 600 });

  test('appends to an empty crontab, then removes back to empty', () => {
    const installed = editCrontab('', block, ROOT);
    expect(installed).toBe(block + '\n');
    expect(editCrontab(installed, null, ROOT)).toBe('');
  });

  test('keeps every other line byte for byte: comments, blank lines, odd spacing, trailing spaces', () => {
    const before =
      '# my jobs\nMAILTO=ann@example.com\n\n0 3 * * *   /usr/bin/backup  --all  \n\n\n# end of my jobs \n';
    const installed = editCrontab(before, block, ROOT);
    expect(installed).toBe(before + block + '\n');
    expect(editCrontab(installed, block, ROOT)).toBe(installed); // idempotent: one entry
    const changed = editCrontab(installed, block2, ROOT);
    expect(changed).toBe(before + block2 + '\n'); // replaced in place, not added
    expect(findCronBlock(changed, ROOT)?.everySeconds).toBe(600);
    expect(editCrontab(changed, null, ROOT)).toBe(before);
  });

  test('a block in the middle is replaced where it is, and removed without touching its neighbours', () => {
    const text = `0 1 * * * a\n\n${block}\n# after\n0 2 * * * b\n`;
    expect(editCrontab(text, block2, ROOT)).toBe(`0 1 * * * a\n\n${block2}\n# after\n0 2 * * * b\n`);
    expect(editCrontab(text, null, ROOT)).toBe('0 1 * * * a\n\n# after\n0 2 * * * b\n');
  });

  test('a missing trailing newline: the block goes on a line of its own; the other lines stay as they were', () => {
    const installed = editCrontab('0 3 * * * backup', block, ROOT);
    expect(installed).toBe(`0 3 * * * backup\n${block}\n`);
    expect(editCrontab(installed, null, ROOT)).toBe('0 3 * * * backup\n');
    // In the middle of a file without a final newline, the end stays without one.
    expect(editCrontab(`${block}\n0 3 * * * backup`, null, ROOT)).toBe('0 3 * * * backup');
    expect(editCrontab(`${block}\n0 3 * * * backup`, block2, ROOT)).toBe(`${block2}\n0 3 * * * backup`);
  });

  test('two runs roots keep two blocks; each is edited alone', () => {
    const other = { ...VALUES, runsRoot: '/data/other', defaultRoot: false };
    const both = editCrontab(editCrontab('# mine\n', block, ROOT), cronBlock(other), other.runsRoot);
    expect(both).toBe(`# mine\n${block}\n${cronBlock(other)}\n`);
    expect(findCronBlock(both, other.runsRoot)?.line).toContain('OVERNIGHT_HOME=/data/other');
    expect(editCrontab(both, null, ROOT)).toBe(`# mine\n${cronBlock(other)}\n`);
    expect(editCrontab(both, block2, ROOT)).toBe(`# mine\n${block2}\n${cronBlock(other)}\n`);
    // A root that is a prefix of another is a different root.
    expect(editCrontab(both, null, '/data/oth')).toBe(both);
  });

  test('duplicate blocks for one root collapse into one; an unterminated block is refused', () => {
    expect(editCrontab(`${block}\nx\n${block}\n`, block2, ROOT)).toBe(`${block2}\nx\n`);
    expect(() => editCrontab(`x\n${block.split('\n')[0]}\ny\n`, block2, ROOT)).toThrow(/crontab -e/);
  });

  test('a crontab of only blank lines keeps them', () => {
    expect(editCrontab(editCrontab('\n\n', block, ROOT), null, ROOT)).toBe('\n\n');
  });
});

describe('buildPath', () => {
  test('dedupes and keeps the first occurrence, in order', () => {
    expect(buildPath(['/a/bin', '/usr/bin', '/a/bin', '/b', '/usr/bin', '/bin'])).toBe(
      '/a/bin:/usr/bin:/b:/bin',
    );
  });
  test('drops empty, relative and colon-holding entries; trailing slashes do not make a new entry', () => {
    expect(buildPath(['', 'bin', '/a/', '/a', '/x:y', '/'])).toBe('/a:/');
  });
});

test('shellQuote leaves plain paths bare and quotes the rest', () => {
  expect(shellQuote('/usr/bin/node')).toBe('/usr/bin/node');
  expect(shellQuote('/a b')).toBe("'/a b'");
  expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  expect(shellQuote('$HOME')).toBe("'$HOME'");
});

describe('the repository examples are generated by the same code', () => {
  test('crontab.example', () => golden(join(REPO, 'crontab.example'), exampleCrontab()));
  test('launchd/dev.overnight.reconcile.plist', () =>
    golden(join(REPO, 'launchd', 'dev.overnight.reconcile.plist'), examplePlist()));
});

describe('schedulerProblem: what `schedule install` says when its scheduler is not here', () => {
  const none = { darwin: false, crontab: false, systemdUser: false };
  const meanwhile =
    "Nothing was installed. Without a schedule, an agent's exit still starts a pass (a crash is resumed " +
    "within seconds) and each run's timers end its waits and its night on time, but nothing resumes a run " +
    'after a reboot, and a hang or a killed wrapper is found only at the end time.';
  test.each<{ name: string; backend: Backend; chosen: boolean; here: SchedulersHere; want: string | null }>([
    {
      name: 'cron, with a crontab',
      backend: 'cron',
      chosen: true,
      here: { ...none, crontab: true },
      want: null,
    },
    {
      name: 'the default fell to cron: neither is here, so cron is to be installed (no systemd suggested)',
      backend: 'cron',
      chosen: false,
      here: none,
      want:
        'the crontab command was not found, and systemd has no user manager here (`systemctl --user` does ' +
        'not answer): install cron (apt-get install cron on Debian and Ubuntu, dnf install cronie on ' +
        `Fedora) and run \`overnight schedule install\` again. ${meanwhile}`,
    },
    {
      name: '--backend cron without a crontab, where systemd answers: systemd',
      backend: 'cron',
      chosen: true,
      here: { ...none, systemdUser: true },
      want: `the crontab command was not found: run \`overnight schedule install --backend systemd\`. ${meanwhile}`,
    },
    {
      name: '--backend systemd without a user manager, where cron is: cron',
      backend: 'systemd',
      chosen: true,
      here: { ...none, crontab: true },
      want:
        'systemd has no user manager here (`systemctl --user` does not answer): ' +
        `run \`overnight schedule install --backend cron\`. ${meanwhile}`,
    },
    {
      name: '--backend systemd, and neither: install cron',
      backend: 'systemd',
      chosen: true,
      here: none,
      want: expect.stringMatching(
        /not answer\): install cron .* and run `overnight schedule install` again\. /,
      ),
    },
    {
      name: 'launchd on macOS',
      backend: 'launchd',
      chosen: false,
      here: { ...none, darwin: true },
      want: null,
    },
  ])('$name', ({ backend, chosen, here, want }) => {
    expect(schedulerProblem(backend, chosen, here, 'overnight')).toEqual(want);
  });
});
