import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect } from 'vitest';

import { BIN, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// `overnight logs` on logs written by hand: the current session's tail by default, --all, --lines,
// --raw, a line too long to hold, and -f from the tail.

const ID = '2026-11-21-2315-logs';
const marker = (n: number) =>
  JSON.stringify({ type: 'overnight_session', session: n, mode: n === 1 ? 'initial' : 'resume', at: 'T' });
const said = (text: string) =>
  JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text }] } });
const toolResult = (bytes: number) =>
  JSON.stringify({
    type: 'user',
    message: { content: [{ type: 'tool_result', content: 'r'.repeat(bytes) }] },
  });

/** A run directory and records holding only output.log: `logs` needs nothing else. */
function writeLog(sb: Sandbox, lines: string[]): string {
  mkdirSync(join(sb.runs, ID), { recursive: true });
  mkdirSync(join(sb.runs, '.overnight', ID), { recursive: true });
  const log = sb.state(ID, 'output.log');
  writeFileSync(log, lines.join('\n') + '\n');
  return log;
}

const threeSessions = () => [
  marker(1),
  said('first session'),
  marker(2),
  said('second session'),
  marker(3),
  ...Array.from({ length: 100 }, (_, i) => said(`step ${i}`)),
];

describe('logs', () => {
  it('shows the current session’s last 40 lines by default, saying earlier ones are hidden', async ({
    sb,
  }) => {
    writeLog(sb, threeSessions());
    const r = await sb.run(['logs', ID]);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/earlier lines of session 3 hidden .*--all/);
    expect(lines.slice(1)).toEqual(Array.from({ length: 40 }, (_, i) => `step ${60 + i}`));
  });

  it('--lines N shows N; a session shorter than N is shown from its header', async ({ sb }) => {
    writeLog(sb, threeSessions());
    expect((await sb.run(['logs', ID, '--lines', '3'])).stdout.split('\n').slice(1)).toEqual([
      'step 97',
      'step 98',
      'step 99',
    ]);
    writeLog(sb, [marker(1), said('only this')]);
    const short = await sb.run(['logs', ID, '--lines', '100']);
    expect(short.stdout).toMatch(/── session 1 · (.* · )?(initial|first session) ──/);
    expect(short.stdout).not.toMatch(/hidden/);
    expect((await sb.run(['logs', ID, '--lines', 'x'])).exitCode).toBe(2);
  });

  it('--all shows every session; --raw --all is the file byte for byte; --raw the last raw lines', async ({
    sb,
  }) => {
    const log = writeLog(sb, threeSessions());
    const all = await sb.run(['logs', ID, '--all']);
    for (const n of [1, 2, 3]) expect(all.stdout).toMatch(new RegExp(`── session ${n} `));
    expect(all.stdout).toContain('first session');
    const raw = await sb.run(['logs', ID, '--raw', '--all']);
    expect(raw.stdout + '\n').toBe(sb.read(log));
    const tail = await sb.run(['logs', ID, '--raw', '--lines', '2']);
    expect(tail.stdout.split('\n')).toEqual([said('step 98'), said('step 99')]);
  });

  it('a line too long to hold is named with its size; --raw copies it through whole', async ({ sb }) => {
    const log = writeLog(sb, [marker(1), said('before'), toolResult(3 * 1024 * 1024), said('after')]);
    const shown = await sb.run(['logs', ID, '--all']);
    expect(shown.stdout).toMatch(
      /before\n\[a user line of 3\.0 MB, too long to show; --raw prints it\]\nafter/,
    );
    const raw = await execa(process.execPath, [BIN, 'logs', ID, '--raw', '--all'], {
      env: sb.env,
      extendEnv: false,
      stripFinalNewline: false,
    });
    expect(raw.stdout).toBe(sb.read(log));
  });

  it('-f starts from the tail, prints what is appended, and ends once the run is finished', async ({
    sb,
  }) => {
    const log = writeLog(sb, threeSessions());
    const child = execa(process.execPath, [BIN, 'logs', ID, '-f', '--lines', '2'], {
      env: sb.env,
      extendEnv: false,
      reject: false,
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitFor(() => out.includes('step 99'), { what: 'the tail' });
    appendFileSync(log, [marker(4), said('appended later')].join('\n') + '\n');
    await waitFor(() => out.includes('appended later'), { what: 'the appended line' });
    writeFileSync(sb.state(ID, 'DONE'), 'stopped by user\n');
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(out).not.toContain('step 97');
    expect(out).toMatch(/── session 4 · (.* · )?(resume|resumed)\b/);
  });
});
