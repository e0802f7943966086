import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect } from 'vitest';

import { waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';
import { deadPort, startWebhook, type Webhook } from '../helpers/webhook.js';

// Notifications on transitions, end to end: the built CLI, real tmux, the fake agent, a loopback
// webhook server and a command target that writes down what it gets.

let hook: Webhook;
beforeEach(async () => {
  hook = await startWebhook();
});
afterEach(async () => {
  await hook.close();
});

/** config.yaml in the sandbox's XDG_CONFIG_HOME. */
function writeConfig(sb: Sandbox, yaml: string): void {
  const dir = join(sb.dir, 'x', 'overnight');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'config.yaml'), yaml);
}

/** A command target: appends one JSON line per call with its OVERNIGHT_* variables and its stdin. */
function commandTarget(sb: Sandbox): { path: string; out: string; calls: () => Record<string, unknown>[] } {
  const path = join(sb.dir, 'notify-cmd.mjs');
  const out = join(sb.dir, 'notify-cmd.jsonl');
  writeFileSync(
    path,
    [
      '#!/usr/bin/env node',
      "import { appendFileSync, readFileSync } from 'node:fs';",
      "const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('OVERNIGHT_')));",
      "const stdin = JSON.parse(readFileSync(0, 'utf8'));",
      'appendFileSync(process.argv[2], JSON.stringify({ argv: process.argv.slice(3), env, stdin }) + "\\n");',
      "console.log('noted');",
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  const calls = () =>
    (sb.read(out) ?? '')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { path, out, calls };
}

/** Every file under a directory, as text. */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('notifications', () => {
  it('a run that finishes: json, ntfy, slack and a command each get one "done" notice, however many passes follow; the token stays out of logs', async ({
    sb,
  }) => {
    const cmd = commandTarget(sb);
    writeConfig(
      sb,
      [
        'notify:',
        `  - webhook: ${hook.url('/json')}`,
        `  - webhook: ${hook.url('/ntfy')}`,
        '    format: ntfy',
        '    headers:',
        '      Authorization: Bearer ${NTFY_TOKEN}',
        `  - webhook: ${hook.url('/slack')}`,
        '    format: slack',
        `  - command: ${cmd.path}`,
        `    args: [${cmd.out}, --run]`,
      ].join('\n'),
    );
    sb.setBehaviour({ report: true });
    const token = 'tk_night_secret_42';
    const { id, workspace } = await sb.launch('Survey CRDT libraries', [], { NTFY_TOKEN: token });
    await waitFor(() => sb.read(join(workspace, 'DONE')), { what: 'DONE' });
    await waitFor(() => hook.received().length >= 3 && cmd.calls().length >= 1, { what: 'notices' });
    for (let i = 0; i < 3; i++) expect((await sb.run(['reconcile'])).exitCode).toBe(0);
    await sb.quiesce();

    expect(
      hook
        .received()
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/json', '/ntfy', '/slack']);
    expect(cmd.calls()).toHaveLength(1);
    const report = join(workspace, 'REPORT.md');

    const [json] = hook.received('/json');
    expect(json?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(json?.body ?? '')).toMatchObject({
      event: 'done',
      kinds: ['done'],
      run: id,
      state: 'done',
      report,
      workspace,
      task: 'Survey CRDT libraries',
      reason: expect.stringMatching(/REPORT\.md written/),
      title: 'overnight: done: the report is ready',
    });

    const [ntfy] = hook.received('/ntfy');
    expect(ntfy?.headers).toMatchObject({
      title: 'overnight: done: the report is ready',
      priority: 'default',
      tags: 'white_check_mark',
      authorization: `Bearer ${token}`,
    });
    expect(ntfy?.headers['content-type']).toMatch(/^text\/plain/);
    expect(ntfy?.body).toContain(`run ${id}`);
    expect(ntfy?.body).toContain(`report: ${report}`);

    const [slack] = hook.received('/slack');
    const text = (JSON.parse(slack?.body ?? '{}') as { text: string }).text;
    expect(text).toMatch(/^\*overnight: done: the report is ready\*\n/);
    expect(text).toContain(`run ${id}`);

    const [call] = cmd.calls();
    expect(call?.argv).toEqual(['--run']);
    expect(call?.env).toMatchObject({
      OVERNIGHT_EVENT: 'done',
      OVERNIGHT_RUN: id,
      OVERNIGHT_STATE: 'done',
      OVERNIGHT_REASON: expect.stringMatching(/REPORT\.md written/),
      OVERNIGHT_REPORT: report,
      OVERNIGHT_WORKSPACE: workspace,
    });
    expect(call?.stdin).toMatchObject({ event: 'done', run: id });

    // Secrets never go into events or logs: only the outbox (0600, outside the workspace) held it.
    expect(allText(workspace)).not.toContain(token);
    expect(sb.read(join(sb.runs, 'reconcile.log')) ?? '').not.toContain(token);
    const status = await sb.run(['status', '--json']);
    expect(status.stdout).not.toContain(token);
    const outbox = join(sb.runs, '.notify');
    expect(statSync(outbox).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(outbox)) expect(statSync(join(outbox, f)).mode & 0o777).toBe(0o600);
    // The launch environment is gone with the run; the notice did not need it any more.
    expect(sb.read(join(sb.runs, '.agent-env', `${id}.env`))).toBeNull();
  });

  it('a run that needs you (credentials refused): one "needs-you" notice; a dead target is retried by later passes, a refusing one given up at once, both recorded in the events log and warned about by status without the token it echoed, and no pass fails', async ({
    sb,
  }) => {
    const port = await deadPort();
    writeConfig(
      sb,
      [
        'notify_backoff: 0s',
        'notify_tries: 3',
        'notify:',
        `  - {name: dead, webhook: "http://127.0.0.1:${port}/x"}`,
        `  - {name: good, webhook: "${hook.url('/good')}", format: ntfy}`,
        `  - {name: echo, webhook: "${hook.url('/echo')}", headers: {Authorization: "Bearer \${TOKEN}"}}`,
      ].join('\n'),
    );
    const token = 'tk_echoed_secret';
    hook.answer('/echo', 401, `{"error":"token ${token} is not valid"}`);
    sb.setBehaviour({ auth: true });
    const { id, workspace } = await sb.launch('Refused all night', [], { TOKEN: token });
    const failed = await waitFor(() => sb.read(join(workspace, 'FAILED')), {
      timeout: 20_000,
      what: 'FAILED',
    });
    expect(failed).toMatch(/^authentication failed 2 times/);
    await waitFor(() => hook.received('/good').length === 1, { what: 'the good notice' });
    const [good] = hook.received('/good');
    expect(good?.headers).toMatchObject({
      title: 'overnight: failed: needs you',
      priority: 'high',
      tags: 'warning',
    });

    // Each pass tries the dead target once more (backoff 0s) until notify_tries are spent.
    const passes: string[] = [];
    const given = await waitFor(
      async () => {
        const r = await sb.run(['reconcile']);
        passes.push(`exit ${r.exitCode}${r.stderr ? `: ${r.stderr}` : ''}`);
        return sb.events(id).find((e) => e.action === 'notify-failed' && e.target === 'dead');
      },
      { timeout: 30_000, interval: 50, what: 'the dead target given up' },
    );
    expect(passes.filter((p) => p !== 'exit 0')).toEqual([]);
    expect(given).toMatchObject({
      event: 'needs-you',
      target: 'dead',
      error: `connection refused (127.0.0.1:${port})`,
      tries: 3,
    });
    await sb.quiesce();
    expect(hook.received('/good')).toHaveLength(1);

    // A 401 will not change: given up after one try. What it echoed is shown without the token.
    const echo = `notifications failing: echo: HTTP 401 Unauthorized: {"error":"token *** is not valid"}`;
    expect(sb.events(id).find((e) => e.target === 'echo')).toMatchObject({
      action: 'notify-failed',
      reason:
        'the needs-you notice to echo was given up after 1 try: ' +
        'HTTP 401 Unauthorized: {"error":"token *** is not valid"}',
      error: 'HTTP 401 Unauthorized: {"error":"token *** is not valid"}',
      tries: 1,
    });
    const dead =
      `notifications failing: dead: connection refused (127.0.0.1:${port}) ` +
      '(the needs-you notice was given up after 3 tries)';
    const status = await sb.run(['status', '--json']);
    const [row] = JSON.parse(status.stdout) as { warnings?: { code: string; text: string }[] }[];
    expect(row?.warnings?.map((w) => w.text)).toEqual([
      dead,
      `${echo} (the needs-you notice was given up after 1 try)`,
    ]);
    expect(row?.warnings?.map((w) => w.code)).toEqual(['notify-failing', 'notify-failing']);
    expect((await sb.run(['status'])).stdout).toContain(`└ ${dead}`);
    expect(
      status.stdout + allText(workspace) + (sb.read(join(sb.runs, 'reconcile.log')) ?? ''),
    ).not.toContain(token);
    // Nothing about it stopped the run being supervised to its end.
    expect(sb.events(id).filter((e) => e.action === 'finish')).toHaveLength(1);
  });

  it('a bad target in the config is skipped with a warning; the pass goes on and the good target hears; a restart reaches who asked for it; stop is not news', async ({
    sb,
  }) => {
    writeConfig(sb, `notify:\n  - {webhook: "${hook.url('/all')}", on: [restart, done]}\n`);
    sb.setBehaviour([{ exit: 1 }, { work: 3, report: true }]);
    const { id, workspace } = await sb.launch('Crash once');
    // The restart is told while the run goes on, by the pass that restarted it.
    await waitFor(() => hook.received('/all').length === 1, { what: 'the restart notice' });
    expect(sb.read(join(workspace, 'DONE'))).toBeNull();
    await waitFor(() => sb.read(join(workspace, 'DONE')), { timeout: 20_000, what: 'DONE' });
    await waitFor(() => hook.received('/all').length === 2, { what: 'two notices' });
    const seen = hook.received('/all').map((r) => JSON.parse(r.body) as { event: string; run: string });
    expect(seen.map((e) => e.event)).toEqual(['restart', 'done']);

    sb.setBehaviour({ work: 60 });
    const second = await sb.launch('Stopped by hand');
    await sb.agentPid(second.id);
    // Launch refuses a bad target; a pass, which runs unattended, skips it and goes on.
    writeConfig(
      sb,
      `notify:\n  - {webhook: "${hook.url('/b')}", format: ntfi}\n  - {webhook: "${hook.url('/c')}"}\n`,
    );
    const stop = await sb.run(['stop', second.id]);
    expect(stop.exitCode).toBe(0);
    const r = await sb.run(['reconcile']);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(
      /warning: .*config\.yaml: notify target 1 \(webhook to http:\/\/127\.0\.0\.1:\d+\): format: "ntfi" is not one of json, ntfy, slack; skipped$/m,
    );
    await sb.quiesce();
    expect(hook.received('/b')).toEqual([]);
    expect(hook.received('/c')).toEqual([]);
    expect(hook.received('/all')).toHaveLength(2);
    expect(id).not.toBe(second.id);
  });
});

describe('notify test and doctor', () => {
  it('notify test sends a test to every target and says what each answered; one that fails makes it exit 1', async ({
    sb,
  }) => {
    const cmd = commandTarget(sb);
    const port = await deadPort();
    hook.answer('/refuses', 403, '{"code":40301,"error":"forbidden"}');
    writeConfig(
      sb,
      [
        'notify:',
        `  - {name: phone, webhook: "${hook.url('/t')}", format: ntfy, headers: {Authorization: "Bearer \${TOKEN}"}}`,
        `  - {command: ${cmd.path}, args: [${cmd.out}]}`,
        `  - {name: dead, webhook: "http://127.0.0.1:${port}/"}`,
        `  - {name: refuses, webhook: "${hook.url('/refuses')}"}`,
        `  - {name: unset, webhook: "${hook.url('/u')}", headers: {X: "\${NOT_SET_ANYWHERE}"}}`,
      ].join('\n'),
    );
    const r = await sb.run(['notify', 'test'], { env: { TOKEN: 'tk_now' } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout.split('\n')).toEqual([
      'ok      phone: HTTP 200 OK',
      `ok      command ${cmd.path}: exit 0: noted`,
      `failed  dead: connection refused (127.0.0.1:${port})`,
      'failed  refuses: HTTP 403 Forbidden: {"code":40301,"error":"forbidden"}',
      'failed  unset: the header X names ${NOT_SET_ANYWHERE}, which this shell does not set; ' +
        'export NOT_SET_ANYWHERE in the shell you launch runs from',
      '2 of 5 targets answered.',
    ]);
    const [t] = hook.received('/t');
    expect(t?.headers).toMatchObject({
      title: 'overnight: test notification',
      authorization: 'Bearer tk_now',
    });
    expect(cmd.calls()[0]?.env).toMatchObject({ OVERNIGHT_EVENT: 'test', OVERNIGHT_RUN: 'test' });
    expect(hook.received('/u')).toEqual([]);

    const json = await sb.run(['notify', 'test', '--json'], { env: { TOKEN: 'tk_now' } });
    expect(JSON.parse(json.stdout)).toContainEqual({
      target: 'phone',
      kind: 'webhook',
      ok: true,
      answer: 'HTTP 200 OK',
    });
  });

  it('notify test without targets says how to add one and exits 1', async ({ sb }) => {
    const r = await sb.run(['notify', 'test']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^no notification targets in .*config\.yaml; add a notify: list/);
  });

  it('doctor checks each target: a command that is not executable is a problem, a token this shell lacks a warning', async ({
    sb,
  }) => {
    const script = join(sb.dir, 'not-executable.sh');
    writeFileSync(script, '#!/bin/sh\n');
    writeConfig(
      sb,
      [
        'notify:',
        `  - command: ${script}`,
        `  - {name: phone, webhook: "https://ntfy.sh/x", headers: {Authorization: "Bearer \${NTFY_TOKEN}"}}`,
        `  - webhook: ${hook.url('/ok')}`,
      ].join('\n'),
    );
    const r = await sb.run(['doctor', '--json'], { env: { NTFY_TOKEN: undefined } });
    expect(r.exitCode).toBe(1);
    const checks = (JSON.parse(r.stdout) as { checks: { name: string; status: string; detail: string }[] })
      .checks;
    expect(checks.filter((c) => c.name === 'notify')).toEqual([
      expect.objectContaining({ status: 'problem', detail: `command ${script} is not executable` }),
      expect.objectContaining({
        status: 'warning',
        detail: expect.stringMatching(/^phone names \$\{NTFY_TOKEN\}/),
      }),
      expect.objectContaining({
        status: 'ok',
        detail: expect.stringMatching(/^json webhook to 127\.0\.0\.1:\d+, on done, failed, needs-you$/),
      }),
    ]);
    expect(hook.received()).toEqual([]); // doctor sends nothing
  });
});
