import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect } from 'vitest';

import { alive, BIN, records, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import { startWebhook, type Webhook } from '../helpers/webhook.js';

// Exactly one notice per transition and target when passes are killed, senders die, or passes run
// at once; none lost when the pass that should send it dies.

let hook: Webhook;
beforeEach(async () => {
  hook = await startWebhook();
});
afterEach(async () => {
  await hook.close();
});

function writeConfig(sb: Sandbox, yaml: string): void {
  const dir = join(sb.dir, 'x', 'overnight');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), yaml);
}

interface DeliveryFile {
  status: string;
  attempts: number;
  event: { id: string; event: string };
}

function outbox(sb: Sandbox): DeliveryFile[] {
  const dir = join(sb.runs, '.notify');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(sb.read(join(dir, f)) ?? '') as DeliveryFile);
}

/**
 * A run whose agent wrote its report and ended while the run was paused (the PAUSE file alone, as
 * `pause` writes it), so the wrapper's pass left it alone: the DONE transition is left for the
 * pass the test starts.
 */
async function finishedUnrecorded(sb: Sandbox): Promise<{ id: string; workspace: string }> {
  sb.setBehaviour({ work: 1, report: true });
  const { id, workspace } = await sb.launch('Finish while nobody records it');
  await sb.agentPid(id);
  writeFileSync(join(records(workspace), 'PAUSE'), '');
  await waitFor(() => sb.read(sb.state(id, 'agent-1.exit')), { what: 'exit record' });
  await waitFor(async () => !(await sb.hasSession(id)), { what: 'wrapper gone' });
  await sb.quiesce();
  rmSync(join(records(workspace), 'PAUSE'));
  expect(sb.read(join(workspace, 'DONE'))).toBeNull();
  return { id, workspace };
}

/** A pass the test can kill: the built CLI, not awaited. */
function startPass(sb: Sandbox) {
  const pass = execa(process.execPath, [BIN, 'reconcile'], {
    env: sb.env,
    extendEnv: false,
    reject: false,
    cwd: sb.dir,
    stdin: 'ignore',
  });
  return pass;
}

const senders = (sb: Sandbox) => sb.processes().filter((p) => /overnight\.js notify deliver/.test(p.cmdline));

describe('notifications when passes and senders die', () => {
  it('the pass is killed (kill -9) while its notice is in flight: the sender finishes it, later passes (three at once) send nothing more', async ({
    sb,
  }) => {
    writeConfig(sb, `notify_timeout: 30s\nnotify:\n  - webhook: ${hook.url('/slow')}\n`);
    const { workspace } = await finishedUnrecorded(sb);
    hook.hold('/slow');
    const pass = startPass(sb);
    await waitFor(() => hook.received('/slow').length === 1, { what: 'the request in flight' });
    expect(sb.read(join(workspace, 'DONE'))).toMatch(/REPORT\.md/);
    expect(pass.pid !== undefined && alive(pass.pid)).toBe(true);
    process.kill(pass.pid as number, 'SIGKILL');
    await pass;

    // Passes see a live sender on it and start none; senders started anyway see the same and stand back.
    const again = await Promise.all([
      sb.run(['reconcile']),
      sb.run(['reconcile']),
      sb.run(['reconcile']),
      sb.run(['notify', 'deliver']),
      sb.run(['notify', 'deliver']),
    ]);
    expect(again.map((r) => r.exitCode)).toEqual([0, 0, 0, 0, 0]);
    expect(hook.received('/slow')).toHaveLength(1);
    expect(senders(sb)).toHaveLength(1); // the first pass's sender, still waiting for its answer

    hook.release('/slow');
    await waitFor(() => outbox(sb)[0]?.status === 'sent', { what: 'recorded as sent' });
    await sb.run(['reconcile']);
    await sb.quiesce();
    expect(hook.received('/slow')).toHaveLength(1);
    expect(outbox(sb)).toEqual([expect.objectContaining({ status: 'sent', attempts: 1 })]);
  });

  it('the sender itself is killed mid-request: whether it arrived is unknown, so the next pass sends it again (the one duplicate possible), with the same event id', async ({
    sb,
  }) => {
    writeConfig(sb, `notify_timeout: 30s\nnotify:\n  - webhook: ${hook.url('/slow')}\n`);
    await finishedUnrecorded(sb);
    hook.hold('/slow');
    const pass = startPass(sb);
    await waitFor(() => hook.received('/slow').length === 1, { what: 'the request in flight' });
    const [sender] = await waitFor(() => (senders(sb).length === 1 ? senders(sb) : null), {
      what: 'the sender',
    });
    process.kill(sender?.pid as number, 'SIGKILL');
    hook.release('/slow');
    await pass;

    const r = await sb.run(['reconcile']);
    expect(r.exitCode).toBe(0);
    await waitFor(() => outbox(sb)[0]?.status === 'sent', { what: 'recorded as sent' });
    const ids = hook.received('/slow').map((q) => (JSON.parse(q.body) as { id: string }).id);
    expect(ids).toHaveLength(2);
    expect(ids[1]).toBe(ids[0]);
    expect(outbox(sb)).toEqual([expect.objectContaining({ status: 'sent', attempts: 2 })]);
  });

  it('a failed notice retried by four senders and two passes at once, with a slow target: one attempt, one request', async ({
    sb,
  }) => {
    writeConfig(sb, `notify_backoff: 0s\nnotify:\n  - webhook: ${hook.url('/a')}\n`);
    hook.answer('/a', 503, 'busy');
    await finishedUnrecorded(sb);
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    await waitFor(() => outbox(sb)[0]?.attempts === 1, { what: 'the first attempt failed' });
    await sb.quiesce();
    expect(outbox(sb)[0]?.status).toBe('pending');

    hook.answer('/a', 200, '', 400);
    const deliver = () =>
      execa(process.execPath, [BIN, 'notify', 'deliver'], { env: sb.env, extendEnv: false, reject: false });
    const all = await Promise.all([
      deliver(),
      deliver(),
      deliver(),
      deliver(),
      sb.run(['reconcile']),
      sb.run(['reconcile']),
    ]);
    expect(all.map((r) => r.exitCode)).toEqual([0, 0, 0, 0, 0, 0]);
    await waitFor(() => outbox(sb)[0]?.status === 'sent', { what: 'sent' });
    await sb.quiesce();
    expect(hook.received('/a')).toHaveLength(2);
    expect(outbox(sb)[0]).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('the pass that queued a notice died before recording how far it read: the next pass reads the same transitions again and sends nothing twice', async ({
    sb,
  }) => {
    writeConfig(sb, `notify:\n  - webhook: ${hook.url('/once')}\n`);
    sb.setBehaviour({ report: true });
    const { id } = await sb.launch('Read twice');
    await waitFor(() => outbox(sb)[0]?.status === 'sent', { what: 'sent' });
    await sb.quiesce();
    rmSync(sb.state(id, 'notify-offset'));
    rmSync(sb.state(id, 'final.json'));
    // A pass that dies before the summary leaves the run among the live ones too.
    writeFileSync(join(sb.runs, '.live', id), '');
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    await sb.quiesce();
    expect(sb.read(sb.state(id, 'notify-offset'))).not.toBeNull();
    expect(hook.received('/once')).toHaveLength(1);
  });

  it('the pass that recorded DONE died before the run was summarized: the next pass queues and sends its notice', async ({
    sb,
  }) => {
    sb.setBehaviour({ report: true });
    const { id, workspace } = await sb.launch('Die after DONE');
    await waitFor(() => sb.read(sb.state(id, 'final.json')), { what: 'summarized' });
    await sb.quiesce();
    // What a pass killed between writing DONE and the summary leaves: DONE, its event, no summary,
    // the run still among the live ones.
    rmSync(sb.state(id, 'final.json'));
    writeFileSync(join(sb.runs, '.live', id), '');
    writeConfig(sb, `notify:\n  - webhook: ${hook.url('/late')}\n`);
    expect(sb.read(join(workspace, 'DONE'))).toMatch(/REPORT\.md/);

    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    await waitFor(() => hook.received('/late').length === 1, { what: 'the notice' });
    expect(JSON.parse(hook.received('/late')[0]?.body ?? '')).toMatchObject({ event: 'done', run: id });
    expect(sb.read(sb.state(id, 'final.json'))).not.toBeNull();
    await sb.run(['reconcile']);
    await sb.quiesce();
    expect(hook.received('/late')).toHaveLength(1);
  });

  it('a notice queued for a run that is finished and summarized (its pass died before sending) is still sent by a later pass', async ({
    sb,
  }) => {
    writeConfig(sb, `notify:\n  - webhook: ${hook.url('/x')}\n`);
    sb.setBehaviour({ report: true });
    const { id } = await sb.launch('Queued, never sent');
    await waitFor(() => outbox(sb)[0]?.status === 'sent', { what: 'sent once' });
    await sb.quiesce();
    // Make it the state a pass killed right after queueing leaves: pending, never claimed.
    const dir = join(sb.runs, '.notify');
    for (const f of readdirSync(dir)) {
      const path = join(dir, f);
      if (f.includes('.claim-') || f.endsWith('.sent')) rmSync(path);
      else if (f.endsWith('.json')) {
        const d = JSON.parse(sb.read(path) ?? '') as Record<string, unknown>;
        writeFileSync(path, JSON.stringify({ ...d, status: 'pending', attempts: 0, doneAt: undefined }));
      }
    }
    expect(sb.read(sb.state(id, 'final.json'))).not.toBeNull();
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    await waitFor(() => outbox(sb)[0]?.status === 'sent', { what: 'sent by the later pass' });
    expect(hook.received('/x')).toHaveLength(2);
  });

  it('the outbox cannot be written as the run finishes: the run is not forgotten, passes say so and go on; then the notice goes out', async ({
    sb,
  }) => {
    writeConfig(sb, `notify:\n  - webhook: ${hook.url('/x')}\n`);
    mkdirSync(sb.runs, { mode: 0o700 });
    writeFileSync(join(sb.runs, '.notify'), 'a file where the outbox should be');
    sb.setBehaviour({ report: true });
    const { id, workspace } = await sb.launch('Nowhere to queue');
    await waitFor(() => sb.read(join(workspace, 'DONE')), { what: 'DONE' });
    await sb.quiesce();
    const r = await sb.run(['reconcile']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(
      `warning: ${id}: its notifications could not be queued (a file is in the way of a directory: ` +
        `${join(sb.runs, '.notify')}); the next pass tries again`,
    );
    // Not summarized, so later passes still look at it; its launch environment is kept for the notice.
    expect(sb.read(sb.state(id, 'final.json'))).toBeNull();
    expect(sb.read(join(sb.runs, '.agent-env', `${id}.env`))).not.toBeNull();

    rmSync(join(sb.runs, '.notify'));
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    await waitFor(() => hook.received('/x').length === 1, { what: 'the notice' });
    expect(sb.read(sb.state(id, 'final.json'))).not.toBeNull();
    expect(sb.read(join(sb.runs, '.agent-env', `${id}.env`))).toBeNull();
  });

  it('finish on a run whose agent already ended with its report: the DONE it records is told', async ({
    sb,
  }) => {
    writeConfig(sb, `notify:\n  - webhook: ${hook.url('/finish')}\n`);
    const { id, workspace } = await finishedUnrecorded(sb);
    writeFileSync(join(records(workspace), 'PAUSE'), ''); // finish lifts a pause: the report is what was asked for
    const r = await sb.run(['finish', id]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sb.read(join(workspace, 'DONE'))).toMatch(/REPORT\.md/);
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    await waitFor(() => hook.received('/finish').length === 1, { what: 'the done notice' });
    expect(JSON.parse(hook.received('/finish')[0]?.body ?? '')).toMatchObject({ event: 'done', run: id });
  });

  it('archive of a run that finished before notify: was configured: nothing is queued, nothing sent', async ({
    sb,
  }) => {
    sb.setBehaviour({ report: true });
    const { id } = await sb.launch('Archived at once');
    await waitFor(() => sb.read(sb.state(id, 'final.json')), { what: 'summarized' });
    await sb.quiesce();
    rmSync(sb.state(id, 'final.json'));
    writeConfig(sb, `notify:\n  - webhook: ${hook.url('/archived')}\n`);
    const r = await sb.run(['archive', id]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(sb.read(join(sb.runs, 'archive', id, 'DONE'))).not.toBeNull();
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    expect((await sb.run(['notify', 'deliver'])).exitCode).toBe(0);
    expect(readdirSync(sb.runs).includes('.notify') ? outbox(sb) : []).toEqual([]);
    expect(hook.received('/archived')).toEqual([]);
  });

  it.for(['archive', 'rm'])(
    'a notice queued before %s is not sent after it (its paths are gone), and not tried again',
    async (verb, { sb }) => {
      writeConfig(sb, `notify_backoff: 1s\nnotify:\n  - webhook: ${hook.url('/gone')}\n`);
      hook.answer('/gone', 500);
      sb.setBehaviour({ report: true });
      const { id } = await sb.launch('Moved before its notice went out');
      await waitFor(() => hook.received('/gone').length === 1, { what: 'the first try' });
      await waitFor(() => sb.read(sb.state(id, 'final.json')), { what: 'summarized' });
      await sb.quiesce();
      const r = await sb.run(verb === 'rm' ? ['rm', '--yes', id] : ['archive', id]);
      expect(r.exitCode, r.stderr).toBe(0);
      hook.answer('/gone', 200);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the retry is due
      for (let i = 0; i < 2; i++) expect((await sb.run(['notify', 'deliver'])).exitCode).toBe(0);
      expect(hook.received('/gone')).toHaveLength(1);
      expect(outbox(sb)).toEqual([expect.objectContaining({ status: 'failed' })]);
      const status = await sb.run(['status', '--all', ...(verb === 'archive' ? ['--archived'] : [])]);
      expect(status.stdout).not.toMatch(/notifications failing/);
    },
  );
});
