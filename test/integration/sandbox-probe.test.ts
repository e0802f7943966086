// launch proves the sandbox before the first session: the run's policy is tried for real, and a
// night whose sandbox lets a write, a read or a connection through is refused, naming which. Tried
// with a "bubblewrap" that confines nothing (it runs the command as it is), as a broken or
// replaced one would.
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import type { Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

/** A PATH whose bwrap is `fake` (every other command as usual). */
function pathWith(sb: Sandbox, fake: string): string {
  const bin = join(sb.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'bwrap'), fake, { mode: 0o755 });
  for (const dir of (process.env.PATH ?? '').split(':').filter((d) => d.startsWith('/')))
    for (const name of existsSync(dir) ? readdirSync(dir) : [])
      if (!existsSync(join(bin, name))) symlinkSync(join(dir, name), join(bin, name));
  return bin;
}

describe("launch's probe of the sandbox", () => {
  it('a sandbox that confines nothing: refused before anything is made, each leak named', async ({ sb }) => {
    const path = pathWith(sb, '#!/bin/sh\nwhile [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n');
    const r = await sb.run(['launch', 'Survey'], { env: { PATH: path } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/the sandbox did not hold when tried/);
    expect(r.stderr).toMatch(/a command wrote .*\.overnight-probe-.*, outside the run's directories/);
    expect(r.stderr).toMatch(/a command read overnight's records/);
    expect(r.stderr).toMatch(/a command reached a loopback port no policy lists/);
    expect(r.stderr).toMatch(/--no-sandbox/);
    // Nothing launched, and the probe's own files gone.
    expect(sb.calls()).toEqual([]);
    expect(readdirSync(sb.runs).filter((n) => !n.startsWith('.'))).toEqual([]);
    expect(readdirSync(join(sb.runs, '.overnight')).filter((n) => n.startsWith('.probe'))).toEqual([]);
    expect(readdirSync(sb.dir).filter((n) => n.startsWith('.overnight-probe'))).toEqual([]);
  });

  it('a sandbox that cannot start: refused with what bubblewrap said', async ({ sb }) => {
    const path = pathWith(
      sb,
      '#!/bin/sh\ncase "$*" in *PROBE-RAN*) echo "bwrap: setting up uid map: Permission denied" >&2; exit 1;; esac\nexec /usr/bin/bwrap "$@"\n',
    );
    const r = await sb.run(['launch', 'Survey'], { env: { PATH: path } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /the sandbox could not run the run's policy \(bwrap: setting up uid map: Permission denied\)/,
    );
  });

  it('the real one holds: the night starts, with Bash', async ({ sb }) => {
    sb.setBehaviour({ work: 30 });
    const run = await sb.launch('Survey');
    expect(sb.read(sb.state(run.id, 'run.yaml'))).toMatch(/^sandbox:/m);
  });
});
