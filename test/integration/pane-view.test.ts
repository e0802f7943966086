import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect } from 'vitest';

import { alive, allCmdlines, waitFor, type Sandbox } from '../helpers/harness.js';
import { killQuietly } from '../helpers/processes.js';
import { it } from '../helpers/sandbox.js';

// A person who attaches to a run's tmux session, with the line `launch` prints, sees the agent at
// work: the pane shows `overnight logs -f` while a client is attached (src/wrapper/view.sh,
// signalled by the session's hooks), and nothing of it runs while nobody watches, outlives the
// wrapper, or changes what a pass sees of it.

const clients: ResultPromise[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.kill('SIGKILL');
});

/** A terminal attached to the run's session, as a person's would be (script gives it a pty). */
function attach(sb: Sandbox, session: string): ResultPromise {
  const client = execa('script', ['-qfc', `tmux -L overnight attach -t =${session}`, '/dev/null'], {
    env: sb.env,
    extendEnv: false,
    reject: false,
  });
  clients.push(client);
  return client;
}

/** The run's live-log processes: the view's shell and its `logs -f`, by command line. */
function viewOf(id: string): { view: number[]; follower: number[] } {
  const all = allCmdlines().map((p) => ({ pid: p.pid, cmd: p.cmdline.split('\0').join(' ') }));
  const pids = (match: (cmd: string) => boolean) =>
    all.filter((p) => match(p.cmd) && alive(p.pid)).map((p) => p.pid);
  return {
    view: pids((cmd) => cmd.includes('/view.sh ') && cmd.includes(` ${id} `)),
    follower: pids((cmd) => cmd.includes(`overnight.js logs -f ${id}`)),
  };
}

describe('the pane of a run on tmux', () => {
  it('shows the agent’s log live while a person is attached, and runs no follower otherwise', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const { id, session } = await sb.launch('Watch me work', ['--duration', '1h']);
    const agent = await sb.agentPid(id);
    const wrapper = await sb.wrapperPid(id);
    const pane = async () =>
      (await sb.tmux(['capture-pane', '-p', '-J', '-S', '-', '-t', `=${session}:`])).stdout;
    await waitFor(() => viewOf(id).view.length === 1 || null, { what: 'the view beside the wrapper' });
    expect(viewOf(id).follower).toEqual([]);

    attach(sb, session);
    const shown = await waitFor(async () => ((await pane()).includes('── session 1') ? pane() : null), {
      what: 'the rendered log in the pane',
    });
    expect(shown).toContain(
      `Its log follows here while you are attached (anywhere: overnight logs -f ${id})`,
    );
    expect(viewOf(id).follower).toHaveLength(1);
    // Ctrl-C stops neither the agent, nor the wrapper, nor the log shown.
    await sb.tmux(['send-keys', '-t', `=${session}:`, 'C-c']);
    await sb.tmux(['display-message', '-p', '-t', `=${session}:`, 'x']);
    expect(alive(agent)).toBe(true);
    // The pane's process is still the wrapper, as a pass sees it.
    expect(await sb.wrapperPid(id)).toBe(wrapper);
    expect((await sb.status())[0]).toMatchObject({ id, state: 'running' });

    // The last client gone, so is the follower; attached again, it shows again.
    await sb.tmux(['detach-client', '-s', `=${session}`]);
    await waitFor(() => viewOf(id).follower.length === 0 || null, { what: 'the follower gone' });
    attach(sb, session);
    await waitFor(() => viewOf(id).follower.length === 1 || null, { what: 'the follower again' });
    expect(alive(agent)).toBe(true);
  });

  it('ends with the wrapper, killed or at the agent’s end, and with the run’s stop', async ({ sb }) => {
    // Session 1 works until killed; session 2 ends on its own after a few seconds; 3 works on.
    sb.setBehaviour([{ work: 60 }, { work: 3 }, { work: 60 }]);
    const { id, session } = await sb.launch('Watch me go', ['--duration', '1h']);
    await sb.agentPid(id);
    attach(sb, session);
    await waitFor(() => viewOf(id).follower.length === 1 || null, { what: 'the follower' });
    const first = viewOf(id);

    // The wrapper killed outright (its agent lives on): its view and follower go with the pane.
    killQuietly(await sb.wrapperPid(id));
    await waitFor(() => [...first.view, ...first.follower].every((p) => !alive(p)) || null, {
      what: 'the first view gone with its wrapper',
    });

    // The next session's wrapper, its agent ending by itself while a person watches.
    killQuietly(await sb.agentPid(id));
    await sb.run(['reconcile']);
    const second = await sb.agentPid(id, 2);
    attach(sb, session);
    await waitFor(() => viewOf(id).follower.length === 1 || null, { what: 'the second follower' });
    const watched = viewOf(id);
    await waitFor(() => !alive(second) || null, { what: 'session 2 over' });
    await waitFor(() => [...watched.view, ...watched.follower].every((p) => !alive(p)) || null, {
      what: 'the second view gone with its wrapper',
    });

    // And stop, with a person attached.
    await sb.agentPid(id, 3);
    attach(sb, session);
    await waitFor(() => viewOf(id).follower.length === 1 || null, { what: 'the third follower' });
    const third = viewOf(id);
    expect((await sb.run(['stop', id])).exitCode).toBe(0);
    await waitFor(() => [...third.view, ...third.follower].every((p) => !alive(p)) || null, {
      what: 'the third view gone with the run',
    });
    expect(viewOf(id)).toEqual({ view: [], follower: [] });
  });
});
