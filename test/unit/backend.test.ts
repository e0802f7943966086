import { describe, expect, test } from 'vitest';

import { checkBackend } from '../../src/core/doctor/backend.js';
import type { BinaryFacts } from '../../src/core/doctor/binaries.js';
import { backendProblem, chooseBackend, type BackendName } from '../../src/core/run/backend.js';
import { specFromDoc, specToDoc } from '../../src/core/run/records.js';
import { spec } from './builders.js';

// Which backend a run gets, how run.yaml records it, and what doctor says of it.

describe('chooseBackend', () => {
  test.each<{ wanted: BackendName | null; tmux: boolean; want: BackendName | RegExp }>([
    { wanted: null, tmux: true, want: 'tmux' },
    { wanted: null, tmux: false, want: 'detached' },
    { wanted: 'detached', tmux: true, want: 'detached' },
    { wanted: 'detached', tmux: false, want: 'detached' },
    { wanted: 'tmux', tmux: true, want: 'tmux' },
    { wanted: 'tmux', tmux: false, want: /tmux was not found on PATH; .*--backend detached/ },
  ])('asked $wanted, tmux installed: $tmux → $want', ({ wanted, tmux, want }) => {
    const got = chooseBackend(wanted, tmux);
    if (typeof want === 'string') expect(got).toEqual({ backend: want });
    else expect('error' in got && got.error).toMatch(want);
  });
});

describe('backendProblem', () => {
  test.each([
    ['tmux', null],
    ['detached', null],
    ['slurm', null],
    ['kubernetes', /on paper only/],
    ['screen', /unknown backend "screen"; expected one of tmux, detached, slurm/],
  ])('%s', (name, want) => {
    const got = backendProblem(name);
    if (want === null) expect(got).toBeNull();
    else expect(got).toMatch(want);
  });
});

describe('run.yaml', () => {
  test('a run recorded before backends ran in tmux', () => {
    const doc = specToDoc(spec());
    delete doc.backend;
    expect(specFromDoc(doc).backend).toBe('tmux');
  });

  test('a detached run launched without tmux records none, and reads back the same', () => {
    const s = spec({ backend: 'detached', paths: { ...spec().paths, tmux: null } });
    expect(specToDoc(s)).toMatchObject({ backend: 'detached', paths: { tmux: null } });
    expect(specFromDoc(specToDoc(s))).toEqual(s);
  });

  test('a tmux run needs its tmux; an unknown backend is a bad file', () => {
    const doc = specToDoc(spec({ paths: { ...spec().paths, tmux: null } }));
    expect(() => specFromDoc(doc)).toThrow(/tmux is missing or invalid/);
    expect(() => specFromDoc({ ...specToDoc(spec()), backend: 'screen' })).toThrow(/backend is missing/);
  });
});

describe('doctor: backend', () => {
  const found: BinaryFacts = {
    command: 'tmux',
    path: '/usr/bin',
    resolved: '/usr/bin/tmux',
    version: { exitCode: 0, stdout: 'tmux 3.4\n', stderr: '' },
  };
  const missing: BinaryFacts = { command: 'tmux', path: '/usr/bin', resolved: null };
  const shell = { asScheduler: false };

  test('tmux installed: the tmux check, saying runs use it', () => {
    expect(checkBackend(null, found, shell)).toMatchObject({
      name: 'tmux',
      status: 'ok',
      detail: 'tmux 3.4 at /usr/bin/tmux; runs use the tmux backend',
    });
  });

  test('no tmux: not a problem, runs are detached', () => {
    const r = checkBackend(null, missing, shell);
    expect(r).toMatchObject({ name: 'backend', status: 'ok' });
    expect(r.detail).toMatch(/^runs use the detached backend \(tmux is not on PATH\)/);
    expect(r.fix).toBeUndefined();
  });

  test('detached configured: said so, whether tmux is there or not', () => {
    expect(checkBackend('detached', found, shell).detail).toMatch(/\(backend: detached is configured\)/);
  });

  test('tmux configured and missing: a problem, with both ways out', () => {
    const r = checkBackend('tmux', missing, shell);
    expect(r).toMatchObject({ name: 'tmux', status: 'problem' });
    expect(r.fix).toMatch(/install tmux.*, or set backend: detached in config\.yaml/);
  });
});
