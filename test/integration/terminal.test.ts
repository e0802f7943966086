/* eslint-disable no-control-regex -- control characters are what these tests are about */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect } from 'vitest';

import { BIN, records, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// What the agent, the task or a file says never reaches a terminal as a control sequence: on a
// pseudo-terminal (util-linux `script`) and into a pipe.

const OSC52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
const TITLE = '\x1b]0;owned\x07';
const CLEAR = '\x1b[2J\x1b[H';
const EVIL = `${OSC52}${TITLE}${CLEAR}\x1b[8mhidden\x1b[0m\u009b31m`;
/** A crash trace with raw bytes: escapes, a lone C1 byte, invalid UTF-8. */
const GARBAGE = Buffer.concat([
  Buffer.from('trace: '),
  Buffer.from(OSC52),
  Buffer.from([0x9b, 0xff, 0xfe, 0x1b, 0x5b, 0x32, 0x4a]),
  Buffer.from('\n'),
]);

/** `overnight <args>` on a pseudo-terminal: what the terminal was sent (always UTF-8). */
async function onTerminal(sb: Sandbox, args: string[], env: Record<string, string> = {}): Promise<string> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  const r = await execa('script', ['-qfec', command, '/dev/null'], {
    env: { ...sb.env, ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
  });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  return String(r.stdout);
}

/** Every escape sequence in the text (ESC or C1 CSI), overnight's own colours aside. */
const foreign = (bytes: string) =>
  [...bytes.matchAll(/[\x1b\x9b][^\x1b\x9b]{0,12}/g)]
    .map((m) => m[0])
    .filter((e) => !/^\x1b\[[\d;]*m/.test(e));

describe('terminal safety', () => {
  it('logs, logs -f, logs --raw and status <run> on a terminal obey nothing the agent or the task said', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 0, text: `look ${EVIL}`, garbage: GARBAGE.toString('base64'), report: true });
    const task = `Survey ${TITLE}CRDT libraries\nand then ${CLEAR}more`;
    const launched = await onTerminal(sb, ['launch', '--duration', '1h', task]);
    expect(foreign(launched)).toEqual([]);
    const id = /Launched (\S+)/.exec(launched)?.[1] as string;
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 15_000, what: 'DONE' });

    for (const args of [
      ['logs', id],
      ['logs', '-f', id],
      ['logs', '--raw', id],
    ]) {
      const coloured = await onTerminal(sb, args);
      expect(coloured, args.join(' ')).toContain('\\x1b]52;c;ZWNobyBwd25lZA==\\x07');
      expect(foreign(coloured), args.join(' ')).toEqual([]);
      const plain = await onTerminal(sb, args, { NO_COLOR: '1' });
      expect(plain, `${args.join(' ')} with NO_COLOR`).not.toMatch(/[\x1b\x9b]/);
    }
    // status paints states on a terminal: its own colours only.
    const status = await onTerminal(sb, ['status', id]);
    expect(foreign(status)).toEqual([]);
    expect(await onTerminal(sb, ['status', id], { NO_COLOR: '1' })).not.toMatch(/[\x1b\x9b]/);
    expect(status).toMatch(
      /^task: +Survey \\x1b\]0;owned\\x07CRDT libraries … \(the whole task is in \S+\/CLAUDE\.md\)\r?$/m,
    );
  });

  it('into a pipe: logs and status print no escape at all, and logs --raw is the log byte for byte', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 0, text: `look ${EVIL}`, garbage: GARBAGE.toString('base64'), report: true });
    const { id } = await sb.launch(`Survey ${TITLE}CRDT`, ['--duration', '1h']);
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 15_000, what: 'DONE' });
    for (const args of [['logs', id], ['logs', '-f', id], ['status', id], ['status']]) {
      const r = await sb.run(args);
      expect(r.exitCode).toBe(0);
      expect(r.stdout, args.join(' ')).not.toMatch(/[\x1b\x9b]/);
    }
    const raw = await execa(process.execPath, [BIN, 'logs', '--raw', id], {
      env: sb.env,
      extendEnv: false,
      encoding: 'buffer',
      stripFinalNewline: false,
    });
    const log = readFileSync(join(records(sb.ws(id)), 'output.log'));
    expect(log.includes(GARBAGE)).toBe(true);
    expect(Buffer.from(raw.stdout).equals(log)).toBe(true);
  });
});
