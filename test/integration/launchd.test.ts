import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { installLaunchd, plistFile, uninstallLaunchd } from '../../src/adapters/scheduler.js';
import { scheduleNames } from '../../src/core/schedule/cron.js';

// The launchd adapter against a fake launchctl (no macOS here): what it runs, and in what order.
describe('launchd adapter (a fake launchctl)', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const names = scheduleNames('/Users/someone/overnight-runs', true);
  const uid = process.getuid?.() ?? 0;
  const calls = () => readFileSync(join(dir, 'launchctl.log'), 'utf8').trim().split('\n');

  /** bootstrap fails `busy` times with launchd's own message (code 5: a bootout still in progress). */
  const fakeLaunchctl = (busy: number, code = 5) => {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const count = join(dir, 'bootstraps');
    writeFileSync(
      join(bin, 'launchctl'),
      `#!/bin/sh
echo "$*" >> "${join(dir, 'launchctl.log')}"
[ "$1" = bootstrap ] || exit 0
n=$(cat "${count}" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "${count}"
[ $n -gt ${busy} ] && exit 0
echo "Bootstrap failed: ${code}: Input/output error" >&2
exit ${code}
`,
    );
    chmodSync(join(bin, 'launchctl'), 0o755);
    env = { HOME: join(dir, 'home'), PATH: `${bin}:/usr/bin:/bin` };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ovl-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the plist, boots out the old job, and retries bootstrap while the old one is still going', async () => {
    fakeLaunchctl(2);
    const file = await installLaunchd(names, '<plist/>\n', env);
    expect(file).toBe(plistFile(names, env));
    expect(readFileSync(file, 'utf8')).toBe('<plist/>\n');
    expect(calls()).toEqual([
      `bootout gui/${uid}/${names.label}`,
      ...Array(3).fill(`bootstrap gui/${uid} ${file}`),
    ]);

    expect(await uninstallLaunchd(names, env)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(calls().at(-1)).toBe(`bootout gui/${uid}/${names.label}`);
  });

  it('gives up with launchctl’s own message and what to do when bootstrap keeps failing', async () => {
    fakeLaunchctl(100);
    await expect(installLaunchd(names, '<plist/>\n', env, 1_500)).rejects.toThrow(
      /launchctl bootstrap gui\/\d+ .*failed: Bootstrap failed: 5: Input\/output error$/,
    );
    expect(calls().filter((c) => c.startsWith('bootstrap')).length).toBeGreaterThan(1);
  });

  it('does not retry a failure that waiting will not cure', async () => {
    fakeLaunchctl(100, 78);
    await expect(installLaunchd(names, '<plist/>\n', env)).rejects.toThrow(/failed: Bootstrap failed/);
    expect(calls().filter((c) => c.startsWith('bootstrap'))).toHaveLength(1);
  });
});
