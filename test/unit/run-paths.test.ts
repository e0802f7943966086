import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { finishedFiles, recordsDir, runPaths } from '../../src/core/run/paths.js';

// runPaths works out a root's prefix once and makes each path when asked: the strings must be
// those of join() and the plain formulas, for any root and id.
describe('runPaths', () => {
  const roots = [
    '/home/me/overnight',
    '/home/me/overnight/',
    '/home//me/./x/../overnight',
    '/',
    '',
    '.',
    '..',
    'rel/runs/',
  ];
  const ids = ['2026-11-28-1012-survey', 'a', '.hidden', '..', '.', 'a/b', 'a/../b', ''];
  for (const root of roots)
    for (const id of ids)
      it(`root ${JSON.stringify(root)}, id ${JSON.stringify(id)}`, () => {
        const p = runPaths(root, id);
        const workspace = join(root, id);
        const state = recordsDir(dirname(workspace), id);
        expect(p.workspace).toBe(workspace);
        expect(p.state).toBe(state);
        expect(p.findings).toBe(`${workspace}/findings`);
        expect(p.outputLog).toBe(`${state}/output.log`);
        expect(p.agentEnv).toBe(`${dirname(workspace)}/.agent-env/${id}.env`);
        expect(p.pidFile(3)).toBe(`${state}/agent-3.pid`);
        expect({ final: p.final, done: p.done, failed: p.failed }).toEqual(finishedFiles(root, id));
      });
});
