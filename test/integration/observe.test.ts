import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { startTimeOf } from '../../src/adapters/processes.js';
import { runPaths, type RunPaths } from '../../src/core/run/paths.js';
import { serializeSession } from '../../src/core/run/records.js';
import { decide } from '../../src/core/supervise/decide.js';
import { endUnrecorded } from '../../src/core/supervise/state.js';
import { observe } from '../../src/read/observe.js';
import { spec as specOf, STARTED } from '../unit/builders.js';

// What one look at a run's files sees, when the wrapper acts in the middle of the look.
const LATER = new Date(STARTED.getTime() + 60_000);

describe('observe', () => {
  let root: string;
  let paths: RunPaths;
  const spec = specOf();
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'ovo-'));
    paths = runPaths(root, spec.id);
    mkdirSync(paths.state, { recursive: true });
    writeFileSync(paths.session, serializeSession({ n: 1, mode: 'initial', startedAt: STARTED }));
    // An agent that is gone: pid 1's start time is never this.
    writeFileSync(paths.pidFile(1), '1 no-such-start-time\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('a wrapper that records the exit and ends while the backend is asked is seen with its exit record', async () => {
    // The wrapper writes agent-1.exit, then ends: the backend then sees no wrapper for the run.
    const wrapperAlive = async () => {
      writeFileSync(paths.exitFile(1), `1 1 ${Math.floor(Date.now() / 1000)}\n`);
      return false;
    };
    const obs = await observe(paths, spec, wrapperAlive, { HOME: root }, LATER);
    expect(obs.session?.agent).toMatchObject({ running: false, wrapperAlive: false, exit: { code: 1 } });
    expect(decide(spec, obs, LATER).reason).toMatch(/exit 1/);
  });

  it('a wrapper that recorded itself and is gone leaves no exit race to wait out', async () => {
    const wrapper = spawn('/bin/sh', ['-c', 'exit 0']);
    await once(wrapper, 'exit');
    writeFileSync(paths.wrapperFile(1), `${wrapper.pid} no-such-start-time\n`);
    const obs = await observe(paths, spec, async () => false, { HOME: root }, LATER);
    expect(obs.session?.agent).toMatchObject({ running: false, wrapperAlive: false, wrapperGone: true });
    expect(endUnrecorded(obs)).toBe(false);
    expect(decide(spec, obs, LATER).reason).toMatch(/no exit status recorded/);
  });

  it("a wrapper that outlived the backend's view (tmux's server lost) still runs", async () => {
    const wrapper = spawn('/bin/sh', ['-c', 'sleep 60'], { stdio: 'ignore' });
    try {
      const start = await startTimeOf(wrapper.pid as number);
      writeFileSync(paths.wrapperFile(1), `${wrapper.pid} ${start}\n`);
      const obs = await observe(paths, spec, async () => false, { HOME: root }, LATER);
      expect(obs.session?.agent).toMatchObject({ running: false, wrapperAlive: true });
      expect(decide(spec, obs, LATER).cause).toBe('starting');
      // A torn record (no whole line) is no record: the exit race is waited out as before.
      writeFileSync(paths.wrapperFile(1), `${wrapper.pid} ${start}`);
      const torn = await observe(paths, spec, async () => false, { HOME: root }, LATER);
      expect(torn.session?.agent).toMatchObject({ wrapperAlive: false });
      expect(endUnrecorded(torn)).toBe(true);
    } finally {
      wrapper.kill('SIGKILL');
    }
  });

  it('a wrapper gone with no exit record is a session that ended unrecorded', async () => {
    const obs = await observe(paths, spec, async () => false, { HOME: root }, LATER);
    expect(obs.session?.agent).toMatchObject({ running: false, exit: null });
    expect(decide(spec, obs, LATER).reason).toMatch(/no exit status recorded/);
  });
});
