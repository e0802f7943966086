import { describe, expect } from 'vitest';

import { BIN, waitFor, type Call } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

const arg = (c: Call | undefined, flag: string) =>
  c && c.argv.includes(flag) ? c.argv[c.argv.indexOf(flag) + 1] : undefined;

describe('what each session did', () => {
  it('a resume that silently starts a new conversation is recorded, shown, and the next start resumes the run’s own', async ({
    sb,
  }) => {
    sb.setBehaviour([{ exit: 1 }, { newConversation: true, exit: 1 }, { work: 60 }]);
    const { id } = await sb.launch('Keep one conversation', ['--duration', '1h']);
    await waitFor(() => sb.calls()[2], { timeout: 15_000, what: 'the third session' });
    const uuid = arg(sb.calls()[0], '--session-id');
    expect(arg(sb.calls()[2], '--resume')).toBe(uuid);

    const events = sb.events(id);
    expect(events).toContainEqual(
      expect.objectContaining({ action: 'wrong-conversation', session: 2, expected: uuid }),
    );
    const table = await sb.run(['status']);
    expect(table.stdout).toMatch(
      new RegExp(
        `session 2 ran conversation 11111111-2222-4333-8444-555555555555 instead of resuming ${uuid}`,
      ),
    );
  });

  it('logs: --raw is the stream as stored; rendered without colour when not a terminal; -f ends with the run', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 1, text: 'looking at Automerge', report: true });
    const { id } = await sb.launch('Log me', ['--duration', '1h']);
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 15_000, what: 'DONE' });
    const raw = await sb.run(['logs', id, '--raw', '--all']);
    expect(raw.stdout + '\n').toBe(sb.read(sb.state(id, 'output.log')));
    const followed = await sb.run(['logs', id.slice(0, 20), '-f']);
    expect(followed.exitCode).toBe(0);
    expect(followed.stdout).toContain('looking at Automerge');
    expect(followed.stdout).toMatch(/■ result success · 1 turns · \$0\.0100: done/);
    expect(followed.stdout).not.toContain('\x1b[');
  });
});

describe('spend cap', () => {
  it('each session gets --max-budget-usd for what remains; at 90 % the rest goes to the report', async ({
    sb,
  }) => {
    sb.setBehaviour([{ cost: 0.5 }, { cost: 0.45 }, { cost: 0.04, report: true }]);
    const { id } = await sb.launch('Spend wisely', ['--duration', '1h', '--max-cost', '1'], {
      OVERNIGHT_MIN_UPTIME: '0s',
    });
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 20_000, what: 'DONE' });
    const calls = sb.calls();
    expect(calls.map((c) => arg(c, '--max-budget-usd'))).toEqual(['0.9000', '0.4000', '0.0500']);
    expect(calls[2]?.stdin).toMatch(/^Time is up/);
    expect(sb.read(sb.state(id, 'restart.log'))).toMatch(
      /\tsynthesis\texit=0\tuptime=\d+s\tspend cap: \$0\.95 of \$1\.00 spent\n/,
    );
    const row = (await sb.status())[0] as {
      costUsd: number;
      state: string;
    };
    expect(row).toMatchObject({ state: 'done', costUsd: 0.99 });
  });
});

describe('logs on a terminal', () => {
  it('colours on a terminal, none with NO_COLOR', async ({ sb }) => {
    sb.setBehaviour({ work: 0, report: true });
    const { id } = await sb.launch('Colour me', ['--duration', '1h']);
    await waitFor(() => sb.read(sb.ws(id, 'DONE')), { timeout: 15_000, what: 'DONE' });
    const { execa } = await import('execa');
    const tmux = (args: string[]) => execa('tmux', args, { env: sb.env, extendEnv: false, reject: false });
    const screen = async (name: string, noColor: boolean) => {
      const env = noColor ? ['env', 'NO_COLOR=1'] : ['env'];
      // The pane stays open after `logs` ends, so its screen can be read.
      await tmux([
        'new-session',
        '-d',
        '-s',
        name,
        '-x',
        '200',
        '-y',
        '50',
        '--',
        'sh',
        '-c',
        '"$@"; sleep 30',
        'sh',
        ...env,
        process.execPath,
        BIN,
        'logs',
        id,
      ]);
      return waitFor(
        async () => {
          const text = String((await tmux(['capture-pane', '-e', '-p', '-t', name])).stdout);
          return text.includes('result success') ? text : undefined;
        },
        { what: `logs on ${name}` },
      );
    };
    expect(await screen('coloured', false)).toContain('\x1b[');
    expect(await screen('plain', true)).not.toContain('\x1b[');
  });
});
