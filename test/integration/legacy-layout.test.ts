import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { REPO, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// Two runs made by the released layout (records in the run's directory), by the version before the
// move: one finished with its report, one whose agent and tmux server were killed (a reboot).
const FIXTURE = join(REPO, 'test', 'fixtures', 'legacy-layout');
const FINISHED = '2026-11-25-2007-finished';
const WAITING = '2026-11-25-2007-waiting';

/** The fixture under this sandbox's runs root, its paths made this sandbox's and this clone's. */
function plantLegacyRoot(sb: Sandbox): void {
  cpSync(FIXTURE, sb.runs, { recursive: true });
  const now = Date.now();
  const walk = (dir: string): void => {
    chmodSync(dir, 0o700);
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        walk(path);
        continue;
      }
      let text = readFileSync(path, 'utf8').replaceAll('@SANDBOX@', sb.dir).replaceAll('@REPO@', REPO);
      // The waiting run's night is still on: it began a minute ago and ends in an hour.
      if (path.endsWith(join(WAITING, 'run.yaml')))
        text = text
          .replace(/^started_at: .*$/m, `started_at: ${new Date(now - 60_000).toISOString()}`)
          .replace(/^ends_at: .*$/m, `ends_at: ${new Date(now + 3600_000).toISOString()}`);
      writeFileSync(path, text, { mode: 0o600 });
    }
  };
  walk(sb.runs);
  for (const id of [FINISHED, WAITING])
    mkdirSync(join(sb.runs, id, 'findings'), { recursive: true, mode: 0o700 });
}

describe('runs made by the released layout', () => {
  it('the first command moves their records out of their directories, once, and says so', async ({ sb }) => {
    plantLegacyRoot(sb);
    const status = await sb.run(['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stderr).toMatch(/moved overnight's records of 2 runs out of their directories/);
    const rows = JSON.parse(status.stdout) as { id: string; state: string }[];
    expect(rows.find((r) => r.id === FINISHED)?.state).toBe('done');
    for (const id of [FINISHED, WAITING]) {
      for (const file of ['run.yaml', 'output.log', 'restart.log', 'session.json', 'agent-1.pid'])
        expect(existsSync(sb.state(id, file)), `${id} ${file}`).toBe(true);
      for (const file of ['run.yaml', 'output.log', 'restart.log', '.overnight'])
        expect(existsSync(sb.ws(id, file)), `${id} ${file}`).toBe(false);
      expect(statSync(sb.state(id, '')).mode & 0o777).toBe(0o700);
    }
    // DONE stays where people look, and its record is beside the others.
    expect(sb.read(sb.ws(FINISHED, 'DONE'))).toBe(sb.read(sb.state(FINISHED, 'DONE')));
    expect(existsSync(sb.ws(FINISHED, 'REPORT.md'))).toBe(true);
    const again = await sb.run(['status', '--json']);
    expect(again.stderr).not.toMatch(/moved/);
    const logs = await sb.run(['logs', '--all', FINISHED]);
    expect(logs.exitCode, logs.stderr).toBe(0);
  });

  it('a pass moves them and supervises the run on: its crashed session is resumed to DONE', async ({
    sb,
  }) => {
    plantLegacyRoot(sb);
    sb.setBehaviour({ work: 1, report: true });
    const pass = await sb.run(['reconcile']);
    expect(pass.exitCode, pass.stderr).toBe(0);
    expect(pass.stderr).toMatch(/moved overnight's records of 2 runs/);
    await waitFor(() => sb.read(sb.state(WAITING, 'DONE')), {
      timeout: 30_000,
      what: 'the waiting run done',
    });
    const second = sb.calls().at(-1);
    expect(second?.cwd).toBe(sb.ws(WAITING));
    expect(sb.read(sb.state(WAITING, 'output.log'))).toMatch(/"type":"overnight_session","session":2/);
    expect(existsSync(sb.ws(WAITING, 'output.log'))).toBe(false);
    // The view follows its record (written second, for people): a moment later at most.
    await waitFor(() => existsSync(sb.ws(WAITING, 'DONE')), { what: 'the DONE view' });
  });
});
