import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { appendLine, overwriteInPlace, readHead } from '../../src/adapters/files.js';
import { readLogTail, readRestarts, readSession, RESTART_LOG_TAIL } from '../../src/adapters/store.js';
import { runPaths } from '../../src/core/run/paths.js';
import { countFindings } from '../../src/read/rows.js';
import { newestFindings } from '../../src/read/story.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ovt-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('files', () => {
  test('a record appended after a cut-off line starts on a fresh line', () => {
    const log = join(dir, 'output.log');
    writeFileSync(log, '{"type":"assistant","message":{"con');
    appendLine(log, '{"type":"overnight_session","session":2}');
    appendLine(log, 'next');
    expect(readFileSync(log, 'utf8').split('\n')).toEqual([
      '{"type":"assistant","message":{"con',
      '{"type":"overnight_session","session":2}',
      'next',
      '',
    ]);
  });

  test('in place: a shorter record is padded to the file’s size; a longer one is refused', () => {
    const beat = join(dir, 'beat.json');
    writeFileSync(beat, '{"at":"a long enough record"}');
    expect(overwriteInPlace(beat, '{"at":"b"}')).toBe(true);
    expect(JSON.parse(readFileSync(beat, 'utf8'))).toEqual({ at: 'b' });
    expect(overwriteInPlace(beat, 'x'.repeat(100))).toBe(false);
    expect(overwriteInPlace(join(dir, 'missing'), '{}')).toBe(false);
  });
});

describe('bounded reads of files a run may hold (issue 17)', () => {
  const ID = '2026-11-21-2315-survey';
  const paths = () => {
    const p = runPaths(dir, ID);
    mkdirSync(p.workspace, { recursive: true });
    for (const f of [p.restartLog, p.session]) mkdirSync(join(f, '..'), { recursive: true });
    return p;
  };

  test('a 600 MB restart.log is read from its end: its last lines, no whole-file string', () => {
    const p = paths();
    writeFileSync(p.restartLog, '');
    truncateSync(p.restartLog, 600 * 1024 * 1024); // sparse: costs no disk
    appendFileSync(p.restartLog, '\n2026-11-21T23:30:00.000Z\tresume\texit=1\tuptime=5s\tcrashed\n');
    expect(readRestarts(p).map((r) => r.reason)).toEqual(['crashed']);
  });

  test('a log tail drops the cut first line and keeps whole ones', () => {
    const log = join(dir, 'x.log');
    writeFileSync(log, `${'a'.repeat(RESTART_LOG_TAIL)}\nlast\n`);
    expect(readLogTail(log, RESTART_LOG_TAIL)).toBe('last\n');
    writeFileSync(log, 'one\ntwo\n');
    expect(readLogTail(log, RESTART_LOG_TAIL)).toBe('one\ntwo\n');
    expect(readLogTail(join(dir, 'missing.log'), 10)).toBe('');
  });

  test('readHead reads at most its bound', () => {
    const f = join(dir, 'big');
    writeFileSync(f, 'x'.repeat(1 << 20));
    expect(readHead(f, 10)).toBe('x'.repeat(10));
    expect(readHead(join(dir, 'missing'), 10)).toBeNull();
  });

  test('a session.json larger than any record is refused, not read whole', () => {
    const p = paths();
    writeFileSync(p.session, ' '.repeat(1 << 20));
    expect(() => readSession(p)).toThrow(/larger than/);
  });

  test('findings/ is walked to a bounded depth: a maze of directories is not followed to its end', () => {
    const findings = join(dir, 'findings');
    const deep = join(findings, ...Array.from({ length: 200 }, () => 'd'));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(findings, 'top.md'), '# top\n');
    writeFileSync(join(deep, 'bottom.md'), '# bottom\n');
    expect(countFindings(findings)).toBe(1);
    expect(newestFindings(findings, 5).map((f) => f.path)).toEqual(['top.md']);
  });
});
