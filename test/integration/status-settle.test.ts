import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { writeSpec } from '../../src/adapters/store.js';
import { resolveExecutable } from '../../src/adapters/which.js';
import { statusCommand } from '../../src/commands/status.js';
import { tmuxSessionName } from '../../src/core/run/naming.js';
import { runPaths, type RunPaths } from '../../src/core/run/paths.js';
import { serializeSession } from '../../src/core/run/records.js';
import { spec as specOf } from '../unit/builders.js';

// status takes no lock: it may read a run while a pass is starting its next session, whose
// record is written just before tmux runs the wrapper. It must not show that as a lost agent.
describe('status while a pass starts a session', () => {
  let dir: string;
  let paths: RunPaths;
  let socket: string;
  const tmux = resolveExecutable('tmux') as string;
  const env = () => ({
    HOME: dir,
    OVERNIGHT_HOME: join(dir, 'runs'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    PATH: process.env.PATH,
  });

  async function status(): Promise<{ state: string; reason: string }> {
    const out: string[] = [];
    const io = {
      stdout: (l: string) => out.push(l),
      stderr: () => undefined,
      env: env(),
      now: () => new Date(),
    };
    expect(await statusCommand(undefined, { json: true }, io)).toBe(0);
    return (JSON.parse(out.join('\n')) as { state: string; reason: string }[])[0] as {
      state: string;
      reason: string;
    };
  }

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ovs-'));
    socket = join(dir, 'tmux.sock');
    const now = new Date();
    const spec = specOf({
      startedAt: new Date(now.getTime() - 3600_000),
      endsAt: new Date(now.getTime() + 3600_000),
      paths: { ...specOf().paths, tmux, tmuxSocket: socket },
    });
    paths = runPaths(join(dir, 'runs'), spec.id);
    mkdirSync(paths.findings, { recursive: true });
    mkdirSync(paths.state, { recursive: true });
    writeFileSync(paths.questions, '');
    await writeSpec(paths, spec);
  });
  afterEach(() => {
    spawnSync(tmux, ['-S', socket, 'kill-server']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a session recorded a moment ago whose wrapper comes up while status looks is running', async () => {
    writeFileSync(paths.session, serializeSession({ n: 2, mode: 'resume', startedAt: new Date() }));
    const wrapper = new Promise<void>((resolve) =>
      setTimeout(() => {
        spawnSync(tmux, [
          '-S',
          socket,
          'new-session',
          '-d',
          '-s',
          tmuxSessionName(specOf().id),
          'sleep',
          '30',
        ]);
        resolve();
      }, 200),
    );
    const row = await status();
    await wrapper;
    expect(row.state, row.reason).toBe('running');
  });

  it('a session started an hour ago whose agent and wrapper are gone is shown as it is', async () => {
    writeFileSync(
      paths.session,
      serializeSession({ n: 2, mode: 'resume', startedAt: new Date(Date.now() - 3600_000) }),
    );
    // Its agent ran (it recorded itself) and is gone.
    writeFileSync(paths.pidFile(2), '999999 1\n');
    const row = await status();
    expect(row.state).toBe('waiting');
    expect(row.reason).toMatch(/agent ended \(no exit status recorded\)/);
  });
});
