import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REPO, waitFor } from '../helpers/harness.js';

// The pass lock (src/adapters/lock.ts) between two "hosts": process trees in UTS namespaces of
// their own, each with its own hostname, sharing the runs root as two machines would on a shared
// filesystem. The lock records no host and no pid that another machine would have to look up: a
// holder keeps it by refreshing its mtime (every 5 s); it is taken over only after 10 s without a
// refresh. So another host's lock is never stolen while its holder lives, and a holder that is gone
// (its machine lost) gives it up 10 s later.

const STALE_MS = 10_000;

// Takes the lock once and says so (`{"host","got"}` on stdout); a holder keeps it until killed.
const PROGRAM = `
import { hostname } from 'node:os';
import { tryLock } from './lock.mjs';
const [path, mode] = process.argv.slice(2);
const release = await tryLock(path, (err) => console.log(JSON.stringify({ lost: err.message })));
console.log(JSON.stringify({ host: hostname(), got: release !== null }));
if (release && mode === 'hold') setInterval(() => {}, 60_000);
`;

/** A process tree named `host` (unshare --uts; mapped to root in a user namespace when not root). */
function onHost(host: string, argv: string[]) {
  const ns = process.getuid?.() === 0 ? ['--uts'] : ['--user', '--map-root-user', '--uts'];
  const script = 'hostname "$0" && [ "$(hostname)" = "$0" ] || exit 99; exec "$@"';
  return execa('unshare', [...ns, 'sh', '-c', script, host, ...argv], { reject: false, timeout: 30_000 });
}

describe('the pass lock across two hosts on one filesystem', () => {
  let dir = '';
  let program = '';
  let lock = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ovt-lock-'));
    // overnight's own lock module, bundled for plain node.
    await build({
      entryPoints: [join(REPO, 'src', 'adapters', 'lock.ts')],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: join(dir, 'lock.mjs'),
      logLevel: 'warning',
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    program = join(dir, 'take.mjs');
    writeFileSync(program, PROGRAM);
    lock = join(dir, 'root', '.reconcile.lock');
    mkdirSync(join(dir, 'root'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const attempt = async (host: string) => {
    const r = await onHost(host, [process.execPath, program, lock, 'try']);
    if (r.exitCode !== 0) throw new Error(`${host}: exit ${r.exitCode}: ${String(r.stderr)}`);
    return JSON.parse(String(r.stdout).trim().split('\n').pop() as string) as { host: string; got: boolean };
  };

  it("beta never takes alpha's lock while alpha lives, past the stale age; takes it once alpha is gone", async () => {
    const alpha: ResultPromise = onHost('alpha', [process.execPath, program, lock, 'hold']);
    let said = '';
    alpha.stdout?.on('data', (d: Buffer) => (said += d.toString()));
    try {
      await waitFor(() => said.includes('"got":true'), { what: 'alpha holds the lock' });
      expect(JSON.parse(said.split('\n')[0] as string)).toEqual({ host: 'alpha', got: true });
      const heldSince = Date.now();

      // Longer than the stale age: alpha refreshes the lock, so every try of beta is refused.
      const tries: { host: string; got: boolean }[] = [];
      while (Date.now() - heldSince < STALE_MS + 3_000) tries.push(await attempt('beta'));
      expect(tries.length).toBeGreaterThan(1);
      expect(tries.every((t) => t.host === 'beta' && !t.got)).toBe(true);
      expect(said).not.toContain('lost');

      // alpha's machine is lost (kill -9: no release). Its lock was refreshed under 5 s ago: not
      // taken at once; then, 10 s without a refresh, beta takes it over.
      alpha.kill('SIGKILL');
      await alpha;
      expect((await attempt('beta')).got).toBe(false);
      await waitFor(async () => (await attempt('beta')).got, { timeout: 30_000, what: 'beta takes it over' });
    } finally {
      alpha.kill('SIGKILL');
    }
  }, 90_000);
});
