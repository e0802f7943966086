import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect } from 'vitest';

import { alive, BIN, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import { deadPort, startWebhook, type Webhook } from '../helpers/webhook.js';

// The morning digest by notification: a target with `on: digest` and `at:` gets the digest's text
// from the first pass after that local time, once for the day, across passes at once and a pass
// killed mid-delivery; nothing before `at`.

let hook: Webhook;
beforeEach(async () => {
  hook = await startWebhook();
});
afterEach(async () => {
  await hook.close();
});

/**
 * A zone where it is now about noon, so that "23:59" is later today and "00:01" earlier, whenever
 * the tests run (Etc/GMT-N is UTC+N).
 */
function noonZone(): string {
  let h = 12 - new Date().getUTCHours();
  if (h < -12) h += 24;
  if (h > 14) h -= 24;
  return h >= 0 ? `Etc/GMT-${h}` : `Etc/GMT+${-h}`;
}
const TZ = noonZone();

/** The config, and a runs root (a pass over none does nothing at all). */
function writeConfig(sb: Sandbox, yaml: string): void {
  mkdirSync(sb.runs, { recursive: true, mode: 0o700 });
  const dir = join(sb.dir, 'x', 'overnight');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), yaml);
}

const reconcile = (sb: Sandbox) => sb.run(['reconcile'], { env: { TZ } });
const digests = (sb: Sandbox) =>
  readdirSync(join(sb.runs, '.notify')).filter((f) => f.startsWith('digest.') && f.endsWith('.json'));

/** A run that finished with its report, its own passes over. */
async function finishedRun(sb: Sandbox, env: Record<string, string> = {}) {
  sb.setBehaviour({ report: true, cost: 0.45 });
  const run = await sb.launch('Survey CRDT libraries', [], { TZ, ...env });
  await waitFor(() => existsSync(sb.state(run.id, 'final.json')), { what: 'finished' });
  await sb.quiesce();
  return run;
}

describe('the digest by notification', () => {
  it('nothing before its time; then the first pass sends it once for the day, whatever passes follow, with the token of the launch environment', async ({
    sb,
  }) => {
    const target = (time: string) =>
      `notify:\n  - webhook: ${hook.url('/digest')}\n    on: digest\n    at: "${time}"\n` +
      '    headers:\n      Authorization: Bearer ${DIGEST_TOKEN}\n';
    writeConfig(sb, target('23:59'));
    const run = await finishedRun(sb, { DIGEST_TOKEN: 'tok-from-launch' });
    for (let i = 0; i < 2; i++) expect((await reconcile(sb)).exitCode).toBe(0);
    await sb.quiesce();
    expect(hook.received('/digest')).toEqual([]);

    // Its time has come (the config says so now): passes one after another and at once.
    writeConfig(sb, target('00:01'));
    expect((await reconcile(sb)).exitCode).toBe(0);
    const all = await Promise.all([reconcile(sb), reconcile(sb), reconcile(sb)]);
    expect(all.map((r) => r.exitCode)).toEqual([0, 0, 0]);
    await waitFor(() => hook.received('/digest').length === 1, { what: 'the digest' });
    await reconcile(sb);
    await sb.quiesce();
    expect(hook.received('/digest')).toHaveLength(1);
    expect(digests(sb)).toHaveLength(1);
    // Sent hours ago (as the record will say later in the day): kept while its day lasts, not sent again.
    const file = join(sb.runs, '.notify', digests(sb)[0] as string);
    const record = JSON.parse(sb.read(file) ?? '{}') as Record<string, unknown>;
    writeFileSync(
      file,
      JSON.stringify({ ...record, doneAt: new Date(Date.now() - 5 * 3600_000).toISOString() }),
    );
    await reconcile(sb);
    await sb.quiesce();
    expect(existsSync(file)).toBe(true);
    expect(hook.received('/digest')).toHaveLength(1);

    const [req] = hook.received('/digest');
    const body = JSON.parse(req?.body ?? '{}') as Record<string, string>;
    expect(body).toMatchObject({ event: 'digest', title: 'overnight: the morning digest' });
    expect(body.id).toMatch(/^digest:\d{8}$/);
    expect(body.message).toMatch(/^overnight digest · the last 24h · /);
    expect(body.message).toContain('1 run: 1 done · nothing needs you · 0 open questions · $0.45 spent');
    expect(body.message).toContain(run.id);
    // The pass never had the token: it is the launch environment's, kept for the digest.
    expect(req?.headers.authorization).toBe('Bearer tok-from-launch');
    expect(sb.read(join(sb.runs, 'reconcile.log')) ?? '').not.toContain('tok-from-launch');
  });

  it('a pass killed (kill -9) while the digest is in flight: its sender finishes it, later passes send nothing more', async ({
    sb,
  }) => {
    writeConfig(
      sb,
      `notify_timeout: 30s\nnotify:\n  - webhook: ${hook.url('/slow')}\n    on: [digest]\n    at: "00:01"\n`,
    );
    hook.hold('/slow');
    const pass = execa(process.execPath, [BIN, 'reconcile'], {
      env: { ...sb.env, TZ },
      extendEnv: false,
      reject: false,
      cwd: sb.dir,
      stdin: 'ignore',
    });
    await waitFor(() => hook.received('/slow').length === 1, { what: 'the digest in flight' });
    expect(pass.pid !== undefined && alive(pass.pid)).toBe(true);
    process.kill(pass.pid as number, 'SIGKILL');
    await pass;

    const again = await Promise.all([reconcile(sb), reconcile(sb), reconcile(sb)]);
    expect(again.map((r) => r.exitCode)).toEqual([0, 0, 0]);
    expect(hook.received('/slow')).toHaveLength(1);
    hook.release('/slow');
    const sent = () =>
      existsSync(join(sb.runs, '.notify', digests(sb)[0]?.replace(/\.json$/, '.sent') ?? 'x'));
    await waitFor(sent, { what: 'recorded as sent' });
    await reconcile(sb);
    await sb.quiesce();
    expect(hook.received('/slow')).toHaveLength(1);
    // A day without runs says so: the digest is proof the schedule runs.
    expect(JSON.parse(hook.received('/slow')[0]?.body ?? '{}').message).toContain(
      'No run ended or changed in the last 24h.',
    );
  });

  it('a digest that cannot be delivered is warned about under the dashboard', async ({ sb }) => {
    const port = await deadPort();
    writeConfig(
      sb,
      `notify_tries: 1\nnotify:\n  - name: pager\n    webhook: http://127.0.0.1:${port}/x\n    on: digest\n    at: "00:01"\n`,
    );
    expect((await reconcile(sb)).exitCode).toBe(0);
    await waitFor(() => readdirSync(join(sb.runs, '.notify')).some((f) => f.endsWith('.failed')), {
      what: 'given up',
    });
    await sb.quiesce();
    const status = await sb.run(['status']);
    expect(status.stdout).toMatch(
      /warning: notifications failing: pager: .*the digest notice was given up after 1 try/,
    );
  });
});
