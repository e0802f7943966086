import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect } from 'vitest';

import { git, makeRepo } from '../helpers/git.js';
import { BIN, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// Runs the person can call by name, archive and remove.

/** A run that finishes at once with its report. */
async function finished(sb: Sandbox, task: string, flags: string[] = []) {
  sb.setBehaviour({ report: true });
  const run = await sb.launch(task, flags);
  await waitFor(() => existsSync(sb.state(run.id, 'final.json')), { what: `${run.id} finished` });
  return run;
}

const ids = async (sb: Sandbox, ...args: string[]) =>
  (await sb.status<{ id: string }>(args)).map((r) => r.id);

describe('handles', () => {
  it('a name names its run everywhere; of several, the newest wins and says so', async ({ sb }) => {
    const first = await finished(sb, 'First night', ['--name', 'Nuit blanche']);
    const second = await finished(sb, 'Second night', ['--name', 'Nuit blanche']);

    for (const handle of ['Nuit blanche', 'nuit-blanche']) {
      const r = await sb.run(['status', handle]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain('task:       Second night');
      expect(r.stderr).toContain(
        `note: 2 runs are named "Nuit blanche"; this is the newest, ${second.id} (the others: ${first.id})`,
      );
    }
    const logs = await sb.run(['logs', 'Nuit blanche']);
    expect(logs.exitCode, logs.stderr).toBe(0);
    const [row] = await sb.status([first.id]);
    expect(row).toMatchObject({ id: first.id, name: 'Nuit blanche' });
  });

  it('an ambiguous prefix lists the candidates; an unknown handle says where to look', async ({ sb }) => {
    const a = await finished(sb, 'Alpha');
    const b = await finished(sb, 'Beta');
    const day = a.id.slice(0, 10);
    const r = await sb.run(['status', day]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toBe(
      `overnight: "${day}" matches 2 runs (${a.id}, ${b.id}); give more of the id`,
    );
    const none = await sb.run(['stop', 'gamma']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr.trim()).toMatch(
      /^overnight: no run matches "gamma": a run is named by .* \(see `overnight status --all`\)$/,
    );
  });

  it('a name beyond ASCII keeps its letters, and its tmux session is seen from a locale without UTF-8', async ({
    sb,
  }) => {
    sb.setBehaviour({ work: 60 });
    const run = await sb.launch('Nachtarbeit', ['--name', '夜間の調査']);
    expect(run.id).toMatch(/^\d{4}-\d{2}-\d{2}-\d{4}-夜間の調査$/);
    expect(run.session).toMatch(/^overnight-[\x21-\x7e]+$/);
    await sb.agentPid(run.id);
    const r = await sb.run(['status', '夜間の調査']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`watch:      tmux -L overnight attach -t ${run.session}`);
    // A pass from cron runs without a UTF-8 locale; tmux must still list the session by its name,
    // on overnight's own server.
    const listed = await execa('tmux', ['-L', 'overnight', 'list-sessions', '-F', '#{session_name}'], {
      env: { ...sb.env, LANG: undefined, LC_ALL: 'C', LC_CTYPE: undefined },
      extendEnv: false,
      reject: false,
    });
    expect(String(listed.stdout).split('\n')).toContain(run.session);
  });
});

describe('archive', () => {
  it('moves finished runs out of the dashboard and of every pass; status --archived lists them', async ({
    sb,
  }) => {
    const old = await finished(sb, 'Old night', ['--name', 'old']);
    sb.setBehaviour({ work: 60 });
    const live = await sb.launch('Live night', ['--name', 'live']);
    await sb.agentPid(live.id);

    const refused = await sb.run(['archive', 'live']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.trim()).toBe(
      `overnight: ${live.id} is not finished; archive takes finished runs only (stop or finish it first)`,
    );
    const none = await sb.run(['archive', '--finished-before', '1h']);
    expect(none.stdout).toContain('No run finished more than 1h ago.');

    const r = await sb.run(['archive', '--finished-before', '0s']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${old.id}: archived to ${join(sb.runs, 'archive', old.id)}`);
    expect(existsSync(old.workspace)).toBe(false);
    expect(readdirSync(join(sb.runs, 'archive', old.id))).toContain('REPORT.md');

    expect(await ids(sb)).toEqual([live.id]);
    expect(await ids(sb, '--archived')).toEqual([old.id]);
    const table = await sb.run(['status', '--archived']);
    expect(table.stdout).toMatch(new RegExp(`^${old.id} +done`, 'm'));
    // Still found by its name, where it now is.
    const one = await sb.run(['status', 'old']);
    expect(one.stdout).toContain(`workspace:  ${join(sb.runs, 'archive', old.id)}`);
    const pass = await sb.run(['reconcile', '--json']);
    expect((JSON.parse(pass.stdout) as { id: string }[]).map((o) => o.id)).toEqual([live.id]);
  });

  it('unarchive brings a run back where it was, into the dashboard, untouched, and no pass acts on it', async ({
    sb,
  }) => {
    const old = await finished(sb, 'Old night', ['--name', 'old']);
    const before = await sb.status([old.id]);
    expect((await sb.run(['archive', 'old'])).exitCode).toBe(0);
    expect(await ids(sb)).toEqual([]);

    // Only an archived run can be brought back; a live run's name is no archived run.
    expect((await sb.run(['unarchive', 'nosuch'])).exitCode).toBe(2);
    const back = await sb.run(['unarchive', 'old']);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(back.stdout).toContain(`${old.id}: back in ${old.workspace}`);
    expect(readdirSync(old.workspace)).toContain('REPORT.md');
    expect(existsSync(join(sb.runs, 'archive', old.id))).toBe(false);
    expect(existsSync(join(sb.runs, 'archive', '.overnight', old.id))).toBe(false);
    // In the dashboard's list and table again, as it was (its workspace the same as before).
    expect(await ids(sb)).toEqual([old.id]);
    expect(await ids(sb, '--archived')).toEqual([]);
    expect(await sb.status([old.id])).toEqual(before);
    const pass = await sb.run(['reconcile', '--json']);
    expect(JSON.parse(pass.stdout)).toEqual([]);
    // Twice is refused: it is no longer archived.
    const again = await sb.run(['unarchive', old.id]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr.trim()).toBe(
      `overnight: ${old.id} is not archived; overnight status --archived lists the archived runs`,
    );
    // And it can go to the archive again.
    expect((await sb.run(['archive', old.id])).exitCode).toBe(0);
    expect(await ids(sb, '--archived')).toEqual([old.id]);
  });
});

describe('rm', () => {
  it('deletes a finished run and its worktree, never its branch; asks first, or needs --yes', async ({
    sb,
  }) => {
    const repo = await makeRepo(sb.dir);
    sb.setBehaviour({ commit: 'Night work', report: true });
    const r = await sb.run(['launch', '--json', '--repo', repo, '--name', 'to go', 'Work and go']);
    expect(r.exitCode, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as { id: string; workspace: string; worktree: string; branch: string };
    await waitFor(() => existsSync(sb.state(run.id, 'final.json')), { what: 'finished' });

    const unasked = await sb.run(['rm', 'to go']);
    expect(unasked.exitCode).toBe(2);
    expect(unasked.stderr).toMatch(/add --yes to confirm \(there is no terminal to ask on\)$/m);
    expect(existsSync(run.workspace)).toBe(true);

    // At a terminal (a pseudo-terminal by `script`): "n" keeps it, "y" deletes it.
    const atTerminal = (answer: string) =>
      execa('script', ['-qec', `${process.execPath} ${BIN} rm 'to go'`, '/dev/null'], {
        env: sb.env,
        extendEnv: false,
        input: `${answer}\n`,
        reject: false,
      });
    const kept = await atTerminal('n');
    expect(String(kept.stdout)).toContain(`the worktree ${run.worktree}`);
    expect(String(kept.stdout)).toContain(`The branch ${run.branch} stays`);
    expect(String(kept.stdout)).toContain(`${run.id}: kept`);
    expect(existsSync(run.workspace)).toBe(true);
    const gone = await atTerminal('y');
    expect(String(gone.stdout)).toContain(`${run.id}: deleted; the branch ${run.branch} stays`);

    expect(existsSync(run.workspace)).toBe(false);
    expect(existsSync(run.worktree)).toBe(false);
    expect((await git(repo, 'worktree', 'list')).split('\n')).toHaveLength(1);
    expect(await git(repo, 'log', '--format=%s', '-1', run.branch)).toBe('Night work');
    expect(await ids(sb)).toEqual([]);
  });

  it('refuses a live run, and deletes an archived one with --yes', async ({ sb }) => {
    const old = await finished(sb, 'Archived night', ['--name', 'archived']);
    expect((await sb.run(['archive', 'archived'])).exitCode).toBe(0);
    sb.setBehaviour({ work: 60 });
    const live = await sb.launch('Live night');
    await sb.agentPid(live.id);

    const refused = await sb.run(['rm', live.id, '--yes']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`${live.id} is not finished; rm takes finished runs only`);
    expect(await sb.hasSession(live.id)).toBe(true);

    const r = await sb.run(['rm', 'archived', '--yes']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(sb.runs, 'archive', old.id))).toBe(false);
    expect(await ids(sb, '--archived')).toEqual([]);
  });
});
