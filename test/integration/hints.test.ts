import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';

import { REPO, waitFor } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// What a new user pastes: every hint names the command the way it was run, and the run it is
// about; a broken record is named, not hidden behind "no run matches".

const NPX = { npm_command: 'exec', npm_lifecycle_event: 'npx' };
const FAKE_CRONTAB = join(REPO, 'test', 'fixtures', 'fake-crontab.sh');

describe('hints a new user pastes', () => {
  it('under npx, schedule status names `npx overnight schedule install`', async ({ sb }) => {
    const env = { ...NPX, OVERNIGHT_CRONTAB_CMD: FAKE_CRONTAB, FAKE_CRONTAB_FILE: join(sb.dir, 'crontab') };
    const status = await sb.run(['schedule', 'status', '--backend', 'cron'], { env });
    expect(status.stdout).toContain('run `npx overnight schedule install`');
    expect(status.stdout).not.toMatch(/(?<!npx )overnight schedule install/);
    const plain = await sb.run(['schedule', 'status', '--backend', 'cron'], {
      env: { OVERNIGHT_CRONTAB_CMD: FAKE_CRONTAB, FAKE_CRONTAB_FILE: join(sb.dir, 'crontab') },
    });
    expect(plain.stdout).toContain('run `overnight schedule install`');
  });

  it("pause and a paused run's status give the run's id to paste", async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const { id } = await sb.launch('Pause me', ['--duration', '1h', '--name', 'hold']);
    await sb.agentPid(id);
    const paused = await sb.run(['pause', 'hold']);
    expect(paused.exitCode, paused.stderr).toBe(0);
    expect(paused.stdout).toContain(
      `${id}: paused; nothing will be restarted until \`overnight resume ${id}\``,
    );
    const all = await sb.run(['pause', '--all']);
    expect(all.stdout).toContain(
      'every run: paused; nothing will be restarted until `overnight resume --all`',
    );
    const table = await sb.run(['status']);
    expect(table.stdout).toContain(`paused (overnight resume ${id}, or resume --all`);
    expect(table.stdout).not.toContain('<run>');
    await sb.run(['resume', '--all']);
    await sb.run(['stop', id]);
    await sb.quiesce();
  });

  it('notify test blames this shell, not a run, for a variable it lacks', async ({ sb }) => {
    const dir = join(sb.env.XDG_CONFIG_HOME as string, 'overnight');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'config.yaml'),
      'notify:\n  - name: phone\n    webhook: "http://127.0.0.1:9/${MISSING_HERE}"\n',
    );
    const r = await sb.run(['notify', 'test']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      'failed  phone: the webhook URL names ${MISSING_HERE}, which this shell does not set; ' +
        'export MISSING_HERE in the shell you launch runs from',
    );
    expect(r.stdout).not.toContain('launch environment');
  });

  it('a run whose run.yaml is corrupt is named with its file, not "no run matches"', async ({ sb }) => {
    sb.setBehaviour({ work: 0, report: true });
    const { id } = await sb.launch('Find the flaky test', ['--name', 'flaky', '--duration', '1h']);
    await waitFor(() => sb.read(sb.state(id, 'final.json')), { what: 'the run finished' });
    await sb.quiesce();
    const file = sb.state(id, 'run.yaml');
    writeFileSync(file, 'garbage: [\n');

    const status = await sb.run(['status', 'flaky']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stderr).toContain(`note: taking ${id} as the run named "flaky"`);
    expect(status.stderr).toContain(`its run.yaml cannot be read: ${file} (`);
    // A command that ends or deletes a run does not guess: it names the file to restore.
    const rm = await sb.run(['rm', 'flaky', '--yes']);
    expect(rm.exitCode).toBe(2);
    expect(rm.stderr).toContain(`"flaky" may name a run whose run.yaml cannot be read (${id}: ${file} (`);
    expect(rm.stderr).toContain('restore that file, or name the run by its id');
    expect(rm.stderr).not.toContain('no run matches');
  });
});
