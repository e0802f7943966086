import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { initialPrompt } from '../../src/core/agent/briefing.js';
import { runsHere } from '../helpers/ci.js';
import {
  alive,
  allCmdlines,
  FAKE_CLAUDE,
  makeSandbox,
  records,
  waitFor,
  type Sandbox,
} from '../helpers/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every directory and file under `root`, with its permission bits. */
function modes(root: string): Map<string, number> {
  const out = new Map<string, number>([['.', statSync(root).mode & 0o777]]);
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    out.set(path.slice(root.length + 1), statSync(path).mode & 0o777);
  }
  return out;
}

describe('launch', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
  });
  afterAll(() => sb.cleanup());

  it('writes every file of the run private (dirs 0700, files 0600), the wrapper records included', async () => {
    sb.setBehaviour({ work: 1, report: true });
    const { id, workspace } = await sb.launch('Check the modes', ['--duration', '1h']);
    await sb.agentPid(id);
    // The wrapper records the exit and triggers the pass that finishes the run.
    await waitFor(() => existsSync(sb.state(id, 'final.json')), { what: 'final.json' });

    const seen = modes(workspace);
    for (const file of ['CLAUDE.md', 'questions.md', 'REPORT.md', 'DONE'])
      expect(seen.get(file), file).toBe(0o600);
    for (const d of ['.', 'findings']) expect(seen.get(d), d).toBe(0o700);
    // overnight's own records live beside the run's directory, not in it.
    for (const file of ['run.yaml', 'restart.log', 'output.log', '.overnight'])
      expect(seen.has(file), file).toBe(false);
    const kept = modes(records(workspace));
    const expected = [
      'run.yaml',
      'restart.log',
      'output.log',
      'DONE',
      'session.json',
      'prompt.md',
      'agent-1.pid',
      'agent-1.exit',
      'events.jsonl',
      'final.json',
    ];
    for (const file of expected) expect(kept.get(file), file).toBe(0o600);
    expect(kept.get('.')).toBe(0o700);
    for (const [dir, all] of [
      [workspace, seen],
      [records(workspace), kept],
    ] as const)
      for (const [path, mode] of all) {
        const isDir = statSync(join(dir, path)).isDirectory();
        expect({ path, mode: mode.toString(8) }).toEqual({ path, mode: isDir ? '700' : '600' });
      }
    // The runs root and what the passes write there are private too.
    await sb.quiesce();
    expect(statSync(sb.runs).mode & 0o777).toBe(0o700);
    for (const f of ['reconcile.log', '.heartbeat.json'])
      expect(statSync(join(sb.runs, f)).mode & 0o777, f).toBe(0o600);
    expect(sb.read(join(workspace, 'DONE'))).toMatch(/REPORT\.md/);
  });

  it('says what it started, how to watch it, and what would keep it from getting through the night', async () => {
    sb.setBehaviour({ work: 30 });
    const none = {
      ANTHROPIC_API_KEY: undefined,
      CLAUDE_CODE_OAUTH_TOKEN: undefined,
      ANTHROPIC_AUTH_TOKEN: undefined,
      CLAUDE_CODE_USE_BEDROCK: undefined,
      CLAUDE_CODE_USE_VERTEX: undefined,
      CLAUDE_CODE_USE_FOUNDRY: undefined,
    };
    const r = await sb.run(['launch', '--name', 'plain-words', 'Say it plainly'], { env: none });
    expect(r.exitCode, r.stderr).toBe(0);
    const id = /^Launched (\S+)$/m.exec(r.stdout)?.[1] as string;
    expect(id).toMatch(/-plain-words$/);
    expect(r.stdout).toContain(`  follow:    overnight logs -f ${id}`);
    expect(r.stdout).toContain(`  watch:     tmux -L overnight attach -t overnight-${id}`);
    expect(r.stdout).toContain('warning: no schedule is installed');
    expect(r.stdout).toMatch(
      /^warning: neither ANTHROPIC_API_KEY nor CLAUDE_CODE_OAUTH_TOKEN is set.*\n {2}fix: run `claude setup-token`/m,
    );

    const withToken = await sb.run(['launch', '--name', 'with-token', 'Say it plainly'], {
      env: { ...none, CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-test' },
    });
    expect(withToken.exitCode, withToken.stderr).toBe(0);
    expect(withToken.stdout).not.toMatch(/CLAUDE_CODE_OAUTH_TOKEN/);
  });

  it('--json prints id, workspace, session, an ISO endsAt and the backend; run.yaml holds absolute binaries and the session id', async () => {
    sb.setBehaviour({ work: 30 });
    const before = Date.now();
    const r = await sb.run([
      'launch',
      '--json',
      '--duration',
      '2h',
      '--name',
      'json-shape',
      'Shape the output',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, string>;
    expect(Object.keys(out).sort()).toEqual(['backend', 'endsAt', 'id', 'session', 'workspace']);
    expect(out.backend).toBe('tmux'); // installed here: the default
    expect(r.stderr).toMatch(/^warning: no schedule is installed/m); // warnings stay off stdout
    expect(out.id).toMatch(/^\d{4}-\d{2}-\d{2}-\d{4}-json-shape$/);
    expect(out.workspace).toBe(join(sb.runs, out.id as string));
    expect(out.session).toBe(`overnight-${out.id}`);
    expect(new Date(out.endsAt as string).toISOString()).toBe(out.endsAt);
    const ends = new Date(out.endsAt as string).getTime();
    expect(ends).toBeGreaterThanOrEqual(before + 2 * 3600_000 - 1000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 2 * 3600_000 + 1000);
    expect(await sb.hasSession(out.id as string)).toBe(true);

    const doc = parse(sb.read(join(records(out.workspace as string), 'run.yaml')) ?? '') as {
      id: string;
      session_id: string;
      paths: Record<string, string>;
    };
    expect(doc.id).toBe(out.id);
    expect(doc.session_id).toMatch(UUID);
    expect(doc.paths.claude).toBe(FAKE_CLAUDE);
    expect(isAbsolute(doc.paths.tmux as string)).toBe(true);
    expect(existsSync(doc.paths.tmux as string)).toBe(true);
    expect(doc.paths.tmux).toMatch(/\/tmux$/);
    // The first session is started with the id recorded in run.yaml.
    const call = await waitFor(() => sb.calls().find((c) => c.cwd === out.workspace));
    expect(call.argv[call.argv.indexOf('--session-id') + 1]).toBe(doc.session_id);
  });

  it('passes a task with quotes, $(...), backticks and newlines byte-identical on stdin and in no argv', async () => {
    sb.setBehaviour({ work: 30 });
    const marker = `mark${randomBytes(6).toString('hex')}`;
    const pwned = join(sb.dir, 'pwned');
    const task = `Survey ${marker}: it's "double" and 'single' $(touch ${pwned}) \`touch ${pwned}2\` $HOME \\n \\ ;|&>\nsecond line\n\ttabbed 'x'"y" $((1+1)) %s %%`;
    const { id, workspace } = await sb.launch(task, ['--duration', '1h', '--name', 'quoting']);
    const pid = await sb.agentPid(id);
    const call = await waitFor(() => sb.calls().find((c) => c.cwd === workspace));

    expect(call.stdin).toBe(initialPrompt(task));
    expect(call.stdin).toContain(task);
    expect(sb.read(join(workspace, 'CLAUDE.md'))).toContain(`\n${task}\n`);
    expect((parse(sb.read(join(records(workspace), 'run.yaml')) ?? '') as { task: string }).task).toBe(task);
    expect(call.argv.join('\n')).not.toContain(marker);

    // While the agent runs, no process anywhere has any part of the task in its argv.
    expect(alive(pid)).toBe(true);
    const all = allCmdlines();
    expect(all.find((p) => p.pid === pid)?.cmdline).toContain('--session-id'); // the scan sees the agent
    const carriers = all.filter((p) => p.cmdline.includes(marker) || p.cmdline.includes('second line'));
    expect(carriers).toEqual([]);
    expect(alive(pid)).toBe(true);
    expect(existsSync(pwned) || existsSync(`${pwned}2`)).toBe(false);
  });

  it('gives a second launch in the same minute with the same --name a unique suffix', async () => {
    sb.setBehaviour({ work: 30 });
    // Both launches must fall in one minute: start early enough in it (polled, not slept).
    await waitFor(() => new Date().getSeconds() < 50, { timeout: 15_000 });
    const first = await sb.launch('Twin one', ['--name', 'twin']);
    const launched = await sb.run(['launch', '--json', '--name', 'twin', 'Twin two']);
    expect(launched.exitCode, launched.stderr).toBe(0);
    expect(launched.stderr).toContain(`warning: a live run is already named "twin" (${first.id})`);
    const second = JSON.parse(launched.stdout) as { id: string; workspace: string };
    expect(first.id).toMatch(/-twin$/);
    expect(second.id).toBe(`${first.id}-2`);
    expect(sb.read(join(records(second.workspace), 'run.yaml'))).toContain('Twin two');
    expect(sb.read(join(records(first.workspace), 'run.yaml'))).toContain('Twin one');
    expect(await sb.hasSession(second.id)).toBe(true);
    // Ending a run by a shared name would guess: refused, with both ids.
    const stop = await sb.run(['stop', 'twin']);
    expect(stop.exitCode).toBe(2);
    expect(stop.stderr).toContain(`2 runs are named "twin" (${second.id}, ${first.id}); give the id`);
    expect(await sb.hasSession(first.id)).toBe(true);
    const typo = await sb.run(['stop', 'twni']);
    expect(typo.stderr).toContain('did you mean "twin"?');
  });
});

describe('launch refuses before creating anything', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
  });
  afterAll(() => sb.cleanup());

  const nothingCreated = () => {
    const entries = existsSync(sb.runs) ? readdirSync(sb.runs) : [];
    expect(entries).toEqual([]);
    expect(sb.calls()).toEqual([]);
  };
  const oneLine = (stderr: string) => {
    const lines = stderr.trim().split('\n');
    expect(lines, stderr).toHaveLength(1);
    expect(stderr).not.toMatch(/\n\s+at /);
    return lines[0] as string;
  };

  it('exits 1 with one line when the agent binary is missing', async () => {
    const r = await sb.run(['launch', 'No agent here'], { env: { OVERNIGHT_CLAUDE: '/nonexistent' } });
    expect(r.exitCode).toBe(1);
    expect(oneLine(r.stderr)).toContain('/nonexistent');
    nothingCreated();
  });

  it('exits 1 with one line when --backend tmux is asked for and tmux is not on PATH', async () => {
    const bin = join(sb.dir, 'only-node');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const r = await sb.run(['launch', '--backend', 'tmux', 'No tmux here'], {
      env: { PATH: bin },
      command: join(bin, 'node'),
    });
    expect(r.exitCode).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/tmux was not found on PATH; .* or launch with --backend detached/);
    nothingCreated();
  });

  it('exits 2 naming the key and the value for a bad config.yaml value', async () => {
    const config = join(sb.env.XDG_CONFIG_HOME as string, 'overnight', 'config.yaml');
    mkdirSync(join(config, '..'), { recursive: true });
    writeFileSync(config, 'stale_after: soon\n');
    try {
      const r = await sb.run(['launch', 'Bad config']);
      expect(r.exitCode).toBe(2);
      const line = oneLine(r.stderr);
      expect(line).toContain('stale_after');
      expect(line).toContain('soon');
      nothingCreated();
    } finally {
      writeFileSync(config, '');
    }
  });

  it('exits 2 naming the flag and the value for --duration 5x', async () => {
    const r = await sb.run(['launch', '--duration', '5x', 'Bad duration']);
    expect(r.exitCode).toBe(2);
    const line = oneLine(r.stderr);
    expect(line).toContain('duration');
    expect(line).toContain('5x');
    nothingCreated();
  });

  it.runIf(runsHere(process.getuid?.() === 0))(
    'exits 2 for permission_mode bypassPermissions as root without IS_SANDBOX',
    async () => {
      const r = await sb.run(['launch', 'Bypass as root'], {
        env: { OVERNIGHT_PERMISSION_MODE: 'bypassPermissions', IS_SANDBOX: undefined },
      });
      expect(r.exitCode).toBe(2);
      expect(oneLine(r.stderr)).toContain('bypassPermissions');
      nothingCreated();
    },
  );
});
