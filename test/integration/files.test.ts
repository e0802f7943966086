import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';

import { appendLine, overwriteInPlace } from '../../src/adapters/files.js';

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
