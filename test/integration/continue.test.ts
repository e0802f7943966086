import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { parse } from 'yaml';

import { checkoutState, git, makeRepo } from '../helpers/git.js';
import { records, snapshot, waitFor, type Call, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// `overnight continue` with the fake agent: the next night starts from the first one's findings,
// the person's answers and its report, in its own run, linked both ways.

const QUESTIONS =
  '## Automerge 2 only?\n- Best guess: yes, v2 only\n- Why it matters: v1 is unmaintained\n- Priority: high\n\n' +
  '## Include Yjs benchmarks?\n- Best guess: no\n- Priority: low\n';
const ANSWER = 'Yes, v2 only; look at the sync protocol too.';

interface Row {
  id: string;
  state: string;
  continues?: string;
  continuedBy?: string;
  costUsd: number;
  openQuestions: number;
  findings: number;
}

/** A first night that found something, asked two questions, wrote its report and is DONE. */
async function firstNight(sb: Sandbox, task = 'Survey CRDT libraries', flags: string[] = []) {
  sb.setBehaviour({ finding: 'libs.md', questions: QUESTIONS, report: true, cost: 0.5 });
  const run = await sb.launch(task, flags);
  await waitFor(() => existsSync(sb.state(run.id, 'final.json')), { what: `${run.id} finished` });
  await sb.quiesce();
  return run;
}

/** The person answers the first question, as the briefing says: a line "Answer: …" under it. */
function answer(workspace: string): void {
  const file = join(workspace, 'questions.md');
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace('- Priority: high\n', `- Priority: high\nAnswer: ${ANSWER}\n`));
}

async function continued(sb: Sandbox, args: string[]) {
  const r = await sb.run(['continue', '--json', ...args]);
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { id: string; workspace: string; continues: string; conversation: string };
}

const rows = async (sb: Sandbox, ...args: string[]) => await sb.status<Row>(args);
const sessionIdOf = (sb: Sandbox, workspace: string) =>
  (parse(sb.read(join(records(workspace), 'run.yaml')) ?? '') as { session_id: string }).session_id;
const flagValue = (c: Call, flag: string) => c.argv[c.argv.indexOf(flag) + 1];
/** The workspace's files but the two the link writes. */
const unlinked = (files: Record<string, string>) =>
  Object.fromEntries(
    // result.json is a view overnight writes afresh when it settles a run (the answers change it).
    Object.entries(files).filter(([f]) => f !== 'result.json'),
  );

describe('continue', () => {
  it('carries the findings, the answers and the report into a run of its own, resumes the conversation in a copy, and links both nights', async ({
    sb,
  }) => {
    const first = await firstNight(sb);
    answer(first.workspace);
    const before = snapshot(first.workspace);
    const oldSession = sessionIdOf(sb, first.workspace);
    writeFileSync(join(sb.dir, 'notes.md'), 'Focus on the sync protocol tonight.\n');

    sb.setBehaviour([
      { finding: 'sync.md', exit: 0, cost: 0.25 },
      { report: true, cost: 0.25 },
    ]);
    const next = await continued(sb, [first.id, '--duration', '3s', '--task-file', join(sb.dir, 'notes.md')]);
    expect(next).toMatchObject({ continues: first.id, conversation: 'resumed' });
    expect(next.id).not.toBe(first.id);

    // It starts with copies of what the first night left.
    expect(sb.read(join(next.workspace, 'findings', 'libs.md'))).toBe(before['findings/libs.md']);
    expect(sb.read(join(next.workspace, 'questions.md'))).toBe(before['questions.md']);
    expect(sb.read(join(next.workspace, 'previous', 'REPORT.md'))).toBe(before['REPORT.md']);
    expect(existsSync(join(next.workspace, 'REPORT.md'))).toBe(false);
    const claudeMd = sb.read(join(next.workspace, 'CLAUDE.md')) ?? '';
    expect(claudeMd).toContain('Survey CRDT libraries');
    expect(claudeMd).toContain(`## Continued from ${first.id}`);
    expect(claudeMd).toContain('Focus on the sync protocol tonight.');

    // Its first session resumes the first night's conversation into one of its own.
    await waitFor(() => existsSync(sb.state(next.id, 'final.json')), {
      timeout: 30_000,
      what: 'follow-up done',
    });
    await sb.quiesce();
    const newSession = sessionIdOf(sb, next.workspace);
    expect(newSession).not.toBe(oldSession);
    const [fork, resumed] = sb.calls().filter((c) => c.cwd === next.workspace);
    expect(fork?.argv).toEqual(
      expect.arrayContaining(['--resume', oldSession, '--fork-session', '--session-id', newSession]),
    );
    expect(flagValue(fork as Call, '--resume')).toBe(oldSession);
    expect(flagValue(resumed as Call, '--resume')).toBe(newSession);
    expect(fork?.stdin).toContain(`1. Automerge 2 only?\n   Answer: ${ANSWER}`);
    expect(fork?.stdin).toContain('One question is still open');
    expect(fork?.stdin).toContain('Focus on the sync protocol tonight.');
    expect(fork?.argv.join(' ')).not.toContain(ANSWER);
    // The copy holds the first night's history; the first night's own transcript was not touched.
    const projects = join(sb.home, '.claude', 'projects');
    const files = readdirSync(projects).flatMap((d) =>
      readdirSync(join(projects, d)).map((f) => join(projects, d, f)),
    );
    const copy = files.find((f) => f.endsWith(`${newSession}.jsonl`)) as string;
    const own = files.find((f) => f.endsWith(`${oldSession}.jsonl`)) as string;
    expect(readFileSync(copy, 'utf8')).toContain('You are running unattended under overnight');
    expect(readFileSync(own, 'utf8')).not.toContain('continuing the run');

    // Linked both ways, each with its own counters and cost (the first night's spend not counted twice).
    const [a, b] = await rows(sb);
    expect(a).toMatchObject({ id: first.id, continuedBy: next.id, costUsd: 0.5 });
    expect(a?.continues).toBeUndefined();
    expect(b).toMatchObject({ id: next.id, continues: first.id, state: 'done', costUsd: 0.5, findings: 2 });
    expect(b?.continuedBy).toBeUndefined();
    const table = (await sb.run(['status'])).stdout;
    expect(table).toContain(`  └ continued by ${next.id}`);
    expect(table).toContain(`  └ continues ${first.id}`);
    expect((await sb.run(['status', first.id])).stdout).toContain(`next night: continued by ${next.id}`);
    const digest = (await sb.run(['digest'])).stdout;
    expect(digest).toContain(`  nights:     continued by ${next.id}`);
    expect(digest).toContain(`  nights:     continues ${first.id}`);

    // Nothing of the first night changed but its link to the next.
    const after = snapshot(first.workspace);
    expect(unlinked(after)).toEqual(unlinked(before));
    expect(JSON.parse(sb.read(sb.state(first.id, 'continued-by')) ?? '{}')).toMatchObject({ id: next.id });

    // A night is continued once: the next is continued instead.
    const again = await sb.run(['continue', first.id]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain(`${first.id} was already continued by ${next.id}`);
    expect(again.stderr).toContain(`overnight continue ${next.id}`);
  });

  it('hands over to a fresh conversation when the transcript is gone, and when the CLI cannot resume it', async ({
    sb,
  }) => {
    const first = await firstNight(sb, 'Night one');
    answer(first.workspace);
    // ~/.claude cleaned since: nothing to resume.
    const projects = join(sb.home, '.claude', 'projects');
    renameSync(projects, `${projects}.gone`);
    sb.setBehaviour({ report: true });
    const next = await continued(sb, [first.id, '--duration', '30s']);
    expect(next.conversation).toBe('handed over');
    const [call] = await waitFor(
      () => {
        const c = sb.calls().filter((x) => x.cwd === next.workspace);
        return c.length > 0 ? c : null;
      },
      { what: 'the hand-over' },
    );
    expect(call?.argv).not.toContain('--resume');
    expect(flagValue(call as Call, '--session-id')).toBe(sessionIdOf(sb, next.workspace));
    expect(call?.stdin).toContain(`continues the earlier run ${first.id}`);
    expect(call?.stdin).toContain('its conversation could not be resumed (its transcript');
    expect(call?.stdin).toContain(`Answer: ${ANSWER}`);
    expect(call?.stdin).toContain('The task:\n\nNight one');
    await waitFor(() => existsSync(sb.state(next.id, 'final.json')), { what: 'follow-up done' });
    await sb.quiesce();

    // The CLI refuses the fork: the next pass hands over, and the answers are said again.
    sb.setBehaviour([{ noConversation: true }, { report: true }]);
    const third = await continued(sb, [next.id, '--duration', '30s']);
    expect(third.conversation).toBe('resumed');
    await waitFor(() => existsSync(sb.state(third.id, 'final.json')), { what: 'third night done' });
    await sb.quiesce();
    const [refused, fresh] = sb.calls().filter((c) => c.cwd === third.workspace);
    expect(refused?.argv).toContain('--fork-session');
    expect(fresh?.argv).not.toContain('--resume');
    expect(fresh?.stdin).toContain('in a fresh session; the earlier conversation could not be resumed');
    expect(fresh?.stdin).toContain(`This run continues the earlier run ${next.id}.`);
    expect(fresh?.stdin).toContain(`Answer: ${ANSWER}`);
    expect(sb.read(join(records(third.workspace), 'restart.log'))).toMatch(
      /starting a fresh session: the transcript is missing/,
    );
    // The refused fork is no crash of the agent: the fresh session is no counted restart.
    const [row] = JSON.parse((await sb.run(['status', '--json', third.id])).stdout) as {
      restarts: number;
    }[];
    expect(row?.restarts).toBe(0);
    const starts = (sb.read(sb.state(third.id, 'events.jsonl')) ?? '')
      .split('\n')
      .filter((l) => l.includes('"action":"start"'))
      .map((l) => JSON.parse(l) as { cause: string; mode: string });
    expect(starts.at(-1)).toMatchObject({ cause: 'fork-refused', mode: 'retry' });
  });

  it('refuses a live run, saying to finish or stop it first; an archived run is continued from the archive', async ({
    sb,
  }) => {
    sb.setBehaviour({ hang: true });
    const live = await sb.launch('Still going');
    await sb.agentPid(live.id);
    const r = await sb.run(['continue', live.id]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`${live.id} is still going`);
    expect(r.stderr).toContain(`overnight finish ${live.id}`);
    expect(r.stderr).toContain(`overnight stop ${live.id}`);
    expect(readdirSync(sb.runs).filter((d) => d.startsWith('20'))).toEqual([live.id]);
    await sb.run(['stop', live.id]);

    const first = await firstNight(sb, 'Archived night');
    answer(first.workspace);
    expect((await sb.run(['archive', first.id])).exitCode).toBe(0);
    sb.setBehaviour({ report: true });
    const next = await continued(sb, [first.id, '--duration', '30s']);
    expect(sb.read(join(next.workspace, 'findings', 'libs.md'))).toContain('# libs.md');
    const [row] = await rows(sb, '--archived');
    expect(row).toMatchObject({ id: first.id, continuedBy: next.id });
    expect((await rows(sb, next.id))[0]).toMatchObject({ continues: first.id });

    // The follow-up deleted: the link says nothing any more, and the night may be continued again.
    await waitFor(() => existsSync(sb.state(next.id, 'final.json')), { what: 'follow-up done' });
    await sb.quiesce();
    expect((await sb.run(['rm', '--yes', next.id])).exitCode).toBe(0);
    expect((await rows(sb, '--archived'))[0]?.continuedBy).toBeUndefined();
    expect((await sb.run(['status', first.id])).stdout).not.toContain('continued by');
    const again = await continued(sb, [first.id, '--duration', '30s']);
    expect((await rows(sb, '--archived'))[0]).toMatchObject({ continuedBy: again.id });
  });

  it('a repository run is continued on the same branch in a worktree of its own; the first worktree lets go of it, refused while it holds uncommitted work', async ({
    sb,
  }) => {
    const repo = await makeRepo(sb.dir);
    const checkout = await checkoutState(repo);
    // Night one commits and reports; night two (the second invocation) commits and reports.
    sb.setBehaviour([
      { commit: 'Night one: the parser', questions: QUESTIONS, report: true },
      { commit: 'Night two: the sync protocol', report: true },
    ]);
    const r = await sb.run(['launch', '--json', '--repo', repo, '--duration', '30s', 'Fix the parser']);
    expect(r.exitCode, r.stderr).toBe(0);
    const first = JSON.parse(r.stdout) as { id: string; workspace: string; branch: string; worktree: string };
    await waitFor(() => existsSync(sb.state(first.id, 'final.json')), { what: 'night one done' });
    await sb.quiesce();
    answer(first.workspace);
    const nightOne = await git(repo, 'rev-parse', first.branch);

    // Work left uncommitted in the first worktree would not be in the next: refused, naming it.
    writeFileSync(join(first.worktree, 'scratch.txt'), 'half done\n');
    const refused = await sb.run(['continue', first.id]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`${first.worktree} has uncommitted changes`);
    expect(refused.stderr).toContain('?? scratch.txt');
    expect(readdirSync(sb.runs).filter((d) => d.startsWith('20'))).toEqual([first.id]);
    expect(await git(first.worktree, 'symbolic-ref', '--short', 'HEAD')).toBe(first.branch);

    await git(first.worktree, 'clean', '-fq');
    const next = (await continued(sb, [first.id, '--duration', '30s'])) as unknown as typeof first & {
      base: string;
    };
    expect(next).toMatchObject({
      branch: first.branch,
      base: nightOne,
      worktree: join(sb.runs, 'worktrees', next.id),
    });
    // The first worktree is detached where the branch was, its files as they were.
    expect(await git(first.worktree, 'rev-parse', 'HEAD')).toBe(nightOne);
    expect(await git(first.worktree, 'status', '--porcelain')).toBe('');
    await expect(git(first.worktree, 'symbolic-ref', '-q', 'HEAD')).rejects.toThrow();

    await waitFor(() => existsSync(sb.state(next.id, 'final.json')), { what: 'night two done' });
    await sb.quiesce();
    const [fork] = sb.calls().filter((c) => c.cwd === next.worktree);
    expect(fork?.argv).toContain('--fork-session');
    expect(fork?.argv.join(' ')).toContain('--system-prompt-snapshot off');
    expect(flagValue(fork as Call, '--append-system-prompt-file')).toBe(join(next.workspace, 'CLAUDE.md'));
    expect(fork?.stdin).toContain(
      `the worktree ${next.worktree} (your working directory), still on the branch ${first.branch}`,
    );
    expect(fork?.appended).toContain(`carried on from the run ${first.id}`);

    // One branch, two nights: each run shows its own commits.
    expect(await git(repo, 'log', '--format=%s', `${nightOne}~1..${first.branch}`)).toBe(
      'Night two: the sync protocol\nNight one: the parser',
    );
    const [a, b] = (await rows(sb)) as (Row & { commits: { subject: string }[] })[];
    expect(a?.commits.map((c) => c.subject)).toEqual(['Night one: the parser']);
    expect(b?.commits.map((c) => c.subject)).toEqual(['Night two: the sync protocol']);
    expect((await sb.run(['status', first.id])).stdout).toContain(
      '(then carried on by the next night), 1 commit',
    );
    expect(await checkoutState(repo)).toEqual(checkout);
  });
});
