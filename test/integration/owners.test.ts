import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect } from 'vitest';

import { parseTargets } from '../../src/core/notify/targets.js';
import { runPaths } from '../../src/core/run/paths.js';
import { runsHere } from '../helpers/ci.js';
import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import { startWebhook, type Webhook } from '../helpers/webhook.js';

// Attacks from other local users (a runs root, a run or an outbox file they can write) and on
// secrets (a webhook URL with credentials, a token the targets name), tried as an attacker would.

const ROOT = process.getuid?.() === 0;
const NOT_ROOT = 'planting a file as another uid needs root';
const OTHER = 65534;

function writeConfig(sb: Sandbox, yaml: string): void {
  const dir = join(sb.dir, 'x', 'overnight');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), yaml);
}

/** A delivery as another user would plant it: its target a command that leaves a mark. */
function plant(
  sb: Sandbox,
  mark: string,
  target: Record<string, unknown> = {},
  key = 'planted-run.0.abcdef012345',
): string {
  const outbox = join(sb.runs, '.notify');
  mkdirSync(outbox, { recursive: true, mode: 0o700 });
  const now = new Date(Date.now() - 60_000).toISOString();
  const file = join(outbox, `${key}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      v: 1,
      key,
      run: 'planted-run',
      offset: 0,
      target: {
        kind: 'command',
        command: '/bin/sh',
        args: ['-c', `touch ${mark}`],
        id: 'abcdef012345',
        label: 'evil',
        on: ['done'],
        ...target,
      },
      vars: {},
      event: { event: 'done', kinds: ['done'], run: 'planted-run', at: now, state: 'done', reason: 'x' },
      policy: { timeout: 5, tries: 1, backoff: 1 },
      status: 'pending',
      attempts: 0,
      queuedAt: now,
      nextAt: now,
    }) + '\n',
    { mode: 0o600 },
  );
  return file;
}

describe('other users', () => {
  it('a world-writable runs root is refused by launch, status and a pass, with the fix', async ({ sb }) => {
    mkdirSync(sb.runs, { mode: 0o700 });
    chmodSync(sb.runs, 0o777);
    for (const args of [['launch', '--duration', '1h', 'A task'], ['status'], ['reconcile']]) {
      const r = await sb.run(args);
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`chmod 700 ${sb.runs}`);
      expect(r.stderr).toMatch(/other users can write in it/);
    }
    const doctor = await sb.run(['doctor']);
    expect(doctor.stdout).toMatch(/others can write in it/);
    expect(readdirSync(sb.runs)).toEqual([]);
  });

  it.runIf(runsHere(ROOT))(`a runs root owned by another uid is refused (${NOT_ROOT})`, async ({ sb }) => {
    mkdirSync(sb.runs, { mode: 0o700 });
    chownSync(sb.runs, OTHER, OTHER);
    for (const args of [['launch', '--duration', '1h', 'A task'], ['status'], ['reconcile']]) {
      const r = await sb.run(args);
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`belongs to uid ${OTHER}`);
      expect(r.stderr).toContain(`chown 0 ${sb.runs}`);
    }
  });

  it('a run directory others can write is a broken row and skipped by passes; the other runs go on', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 120 });
    const bad = await sb.launch('First task');
    const good = await sb.launch('Second task');
    await sb.agentPid(good.id);
    chmodSync(bad.workspace, 0o777);
    const pass = await sb.run(['reconcile', '--json']);
    expect(pass.exitCode).toBe(0);
    const outcomes = JSON.parse(pass.stdout) as { id: string; action: string; message: string }[];
    expect(outcomes.find((o) => o.id === bad.id)).toMatchObject({
      action: 'skipped',
      message: expect.stringContaining(`chmod 700 ${bad.workspace}`),
    });
    expect(outcomes.find((o) => o.id === good.id)?.action).not.toBe('skipped');
    const rows = await sb.status<{ id: string; state: string; problem?: string }>();
    expect(rows.find((r) => r.id === bad.id)?.problem).toContain(`chmod 700 ${bad.workspace}`);
    expect(rows.find((r) => r.id === good.id)).toMatchObject({ state: 'running' });
    chmodSync(bad.workspace, 0o700);
  });

  it.runIf(runsHere(ROOT))(
    `a run whose records another uid owns is skipped (${NOT_ROOT})`,
    async ({ sb }) => {
      sb.setBehaviour({ work: 120 });
      const run = await sb.launch('A task');
      await sb.agentPid(run.id);
      const records = runPaths(sb.runs, run.id).state;
      chownSync(records, OTHER, OTHER);
      const pass = await sb.run(['reconcile', '--json']);
      const outcomes = JSON.parse(pass.stdout) as { id: string; action: string; message: string }[];
      expect(outcomes.find((o) => o.id === run.id)).toMatchObject({
        action: 'skipped',
        message: expect.stringContaining(`belongs to uid ${OTHER}`),
      });
      chownSync(records, 0, 0);
    },
  );
});

describe('the outbox', () => {
  let hook: Webhook;
  beforeEach(async () => {
    hook = await startWebhook();
  });
  afterEach(async () => {
    await hook.close();
  });

  it.runIf(runsHere(ROOT))(`a delivery planted by another uid runs nothing (${NOT_ROOT})`, async ({ sb }) => {
    writeConfig(sb, ['notify:', `  - webhook: ${hook.url('/json')}`].join('\n'));
    mkdirSync(sb.runs, { mode: 0o700 });
    const mark = join(sb.dir, 'pwned');
    chownSync(plant(sb, mark), OTHER, OTHER);
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    expect((await sb.run(['notify', 'deliver'])).exitCode).toBe(0);
    expect(existsSync(mark)).toBe(false);
  });

  it("a delivery of the person's own runs only the configured target of its id, never its own command", async ({
    sb,
  }) => {
    const log = join(sb.dir, 'cmd.log');
    const script = join(sb.dir, 'notify.sh');
    writeFileSync(script, `#!/bin/sh\necho "$@" >> ${log}\n`, { mode: 0o755 });
    writeConfig(sb, ['notify:', `  - command: ${script}`, `    args: [configured]`].join('\n'));
    const [target] = parseTargets([{ command: script, args: ['configured'] }], sb.dir).targets;
    mkdirSync(sb.runs, { mode: 0o700 });
    const mark = join(sb.dir, 'pwned');
    // The run it names is there (a notice of a run that is gone is given up unsent).
    mkdirSync(join(sb.runs, 'planted-run'), { mode: 0o700 });
    // Its target's id is the configured one, but the command and args in the file are the attacker's.
    const file = plant(sb, mark, { id: target?.id });
    expect((await sb.run(['notify', 'deliver'])).exitCode).toBe(0);
    expect(existsSync(mark)).toBe(false);
    expect(readFileSync(log, 'utf8')).toContain('configured');
    // An id no target has: given up, nothing run.
    const other = plant(sb, mark, {}, 'planted-run.1.abcdef012345');
    expect((await sb.run(['notify', 'deliver'])).exitCode).toBe(0);
    expect(existsSync(mark)).toBe(false);
    expect(JSON.parse(readFileSync(other, 'utf8'))).toMatchObject({
      status: 'failed',
      lastError: expect.stringMatching(/no longer among the notify: targets/),
    });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ status: 'sent' });
  });

  it('with no notify: configured the outbox is left alone, and status and doctor say so', async ({ sb }) => {
    mkdirSync(sb.runs, { mode: 0o700 });
    const mark = join(sb.dir, 'pwned');
    const file = plant(sb, mark);
    expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    expect((await sb.run(['notify', 'deliver'])).exitCode).toBe(0);
    expect(existsSync(mark)).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ status: 'pending', attempts: 0 });
    const status = await sb.run(['status']);
    expect(status.stderr + status.stdout).toMatch(/1 notification waits .* no notify: target is configured/);
    expect((await sb.run(['doctor'])).stdout).toMatch(/outbox.*no notify: target is configured/);
  });
});

describe('secrets', () => {
  let hook: Webhook;
  beforeEach(async () => {
    hook = await startWebhook();
  });
  afterEach(async () => {
    await hook.close();
  });

  it('a webhook URL with credentials is never printed or recorded whole', async ({ sb }) => {
    const url = hook.url('/topic').replace('http://', 'http://user:pw_secret_1@') + '?auth=q_secret_2';
    writeConfig(sb, ['notify_tries: 1', 'notify:', `  - webhook: "${url}"`, '    format: ntfy'].join('\n'));
    const leaks = (text: string) => /pw_secret_1|q_secret_2/.test(text);

    const test = await sb.run(['notify', 'test']);
    expect(test.stdout + test.stderr, 'notify test').not.toSatisfy(leaks);
    const doctor = await sb.run(['doctor']);
    expect(doctor.stdout + doctor.stderr, 'doctor').not.toSatisfy(leaks);

    sb.setBehaviour({ report: true });
    const { id, workspace } = await sb.launch('A task');
    await waitFor(() => sb.read(join(workspace, 'DONE')), { what: 'DONE' });
    const events = () => sb.read(sb.state(id, 'events.jsonl')) ?? '';
    await waitFor(
      async () => {
        await sb.run(['reconcile']);
        await sb.run(['notify', 'deliver']);
        return events().includes('notify-failed');
      },
      { what: 'the notice given up', timeout: 30_000 },
    );
    expect(events(), 'events.jsonl').not.toSatisfy(leaks);
    expect(sb.read(join(sb.runs, 'reconcile.log')) ?? '', 'reconcile.log').not.toSatisfy(leaks);
    const status = await sb.run(['status']);
    expect(status.stdout + status.stderr, 'status').not.toSatisfy(leaks);
    const story = await sb.run(['status', id]);
    expect(story.stdout + story.stderr, 'status <run>').not.toSatisfy(leaks);
    const digest = await sb.run(['digest']);
    expect(digest.stdout + digest.stderr, 'digest').not.toSatisfy(leaks);
  });

  it("the variables targets name are withheld from the agent's environment, and still reach the target", async ({
    sb,
  }) => {
    writeConfig(
      sb,
      [
        'notify:',
        `  - webhook: ${hook.url('/ntfy')}`,
        '    format: ntfy',
        '    headers:',
        '      Authorization: Bearer ${NTFY_TOKEN}',
      ].join('\n'),
    );
    sb.setBehaviour({ report: true });
    const token = 'tk_withheld_77';
    const r = await sb.run(['launch', '--json', 'A task'], { env: { NTFY_TOKEN: token, OTHER_VAR: 'kept' } });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/withheld from the agent's environment.*NTFY_TOKEN/);
    const { workspace } = JSON.parse(r.stdout) as { workspace: string };
    await waitFor(() => sb.read(join(workspace, 'DONE')), { what: 'DONE' });
    const [call] = sb.calls();
    expect(call?.env.OTHER_VAR).toBe('kept');
    expect(call?.env.NTFY_TOKEN).toBeUndefined();
    expect(JSON.stringify(call?.env)).not.toContain(token);
    await waitFor(() => hook.received('/ntfy').length > 0, { what: 'the notice' });
    expect(hook.received('/ntfy')[0]?.headers.authorization).toBe(`Bearer ${token}`);
    await sb.quiesce();
  });
});
