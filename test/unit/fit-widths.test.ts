import stringWidth from 'string-width';
import { describe, expect, test } from 'vitest';

import { localTime } from '../../src/core/local-time.js';
import { formatBoard } from '../../src/core/status/board.js';
import { loadWidths, truncate, width, withWidths, wrap } from '../../src/core/status/fit.js';
import { tableRow } from './builders.js';

// Widths without string-width loaded (this file's modules are its own): printable ASCII and the
// board's symbols are measured as string-width measures them, and any other text makes
// withWidths load it and format again, so a table is never measured by guess.

const NOW = new Date('2026-11-22T08:00:00Z');

const row = (task: string) => tableRow({ task, state: 'running' });

const board = (task: string) => () =>
  formatBoard([row(task)], NOW, { width: 140, colour: false, clock: localTime('UTC') });

describe('cell widths, loaded only when needed', () => {
  test.each(['', 'Survey CRDT libraries', '  └ needs you · status --all', 'verified ✓', 'not ✗', 'cut…'])(
    'without the tables, %j is measured as string-width measures it',
    (text) => {
      expect(width(text)).toBe(stringWidth(text));
    },
  );

  test('an ASCII table is made once, without the tables; a wide one is made again with them', async () => {
    const ascii = await withWidths(board('Survey CRDT libraries and compare them on size and speed'));
    expect(ascii.join('\n')).toContain('Survey CRDT');
    const wide = await withWidths(board('日本語のタスク'.repeat(6)));
    expect(wide.join('\n')).toContain('日本語');
    for (const line of wide) expect(stringWidth(line), line).toBeLessThanOrEqual(140);
    // Made as it would be with the tables loaded from the start.
    await loadWidths();
    expect(wide).toEqual(board('日本語のタスク'.repeat(6))());
    expect(truncate('日本語', 4)).toBe('日…');
    expect(wrap('日本語 日本語', 6)).toEqual(['日本語', '日本語']);
  });
});
