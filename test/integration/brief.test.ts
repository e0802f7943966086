import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { parse } from 'yaml';

import { alive, allCmdlines, records, waitFor, type Sandbox } from '../helpers/harness.js';
import { it } from '../helpers/sandbox.js';

// The task from a file or standard input, a megabyte of it; and the guards against typos.

/** About 1 MB of brief: many lines, markdown, fences, quotes, letters beyond ASCII, a marker at each end. */
function brief(marker: string): string {
  const lines = [`# Night brief ${marker}`, ''];
  for (let i = 0, bytes = 0; bytes < 1024 * 1024; i++) {
    const line = `${i}. Check module ${i}: "quotes" 'single' $(not run) \`ticks\` ~~~ \`\`\` é 夜 \t tab  trailing  `;
    lines.push(line);
    bytes += Buffer.byteLength(line) + 1;
  }
  lines.push(`end ${marker}`, '');
  return lines.join('\n');
}

/** The task reached the agent whole and in no process's argv, and the dashboard shows its first line. */
async function checkBrief(sb: Sandbox, id: string, workspace: string, task: string, marker: string) {
  const pid = await sb.agentPid(id);
  const claudeMd = readFileSync(join(workspace, 'CLAUDE.md'));
  expect(claudeMd.includes(Buffer.from(task))).toBe(true);
  expect((parse(readFileSync(join(records(workspace), 'run.yaml'), 'utf8')) as { task: string }).task).toBe(
    task,
  );
  const call = await waitFor(() => sb.calls().find((c) => c.pid === pid));
  expect(call.stdin).toMatch(
    /The task is long \(about 10\d\d KB\), so it is not repeated here: read it in CLAUDE\.md/,
  );
  expect(call.stdin.length).toBeLessThan(2000);
  expect(alive(pid)).toBe(true);
  expect(allCmdlines().filter((p) => p.cmdline.includes(marker))).toEqual([]);

  const details = await sb.run(['status', id]);
  expect(details.stdout).toContain(
    // A heading's `#` is not part of the title.
    `task:       Night brief ${marker} … (the whole task is in ${workspace}/CLAUDE.md)`,
  );
  expect(details.stdout.length).toBeLessThan(3000);
  const [row] = await sb.status<{ task: string }>();
  expect(row?.task).toBe(`Night brief ${marker}`);
}

describe('a brief from a file or standard input', () => {
  it('--task-file: 1 MB arrives byte-identical in CLAUDE.md and run.yaml, in no argv', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const marker = `brief${randomBytes(6).toString('hex')}`;
    const task = brief(marker);
    const file = join(sb.dir, 'brief.md');
    writeFileSync(file, task);
    const r = await sb.run(['launch', '--json', '--task-file', file, '--name', 'from-file']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: the task is 1\.0 MB; a model's context holds about 200,000 tokens/m);
    const { id, workspace } = JSON.parse(r.stdout) as { id: string; workspace: string };
    await checkBrief(sb, id, workspace, task, marker);
  });

  it('launch -: 1 MB from standard input arrives the same way', async ({ sb }) => {
    sb.setBehaviour({ work: 60 });
    const marker = `stdin${randomBytes(6).toString('hex')}`;
    const task = brief(marker);
    const r = await sb.run(['launch', '--json', '--name', 'from-stdin', '-'], { input: task });
    expect(r.exitCode, r.stderr).toBe(0);
    const { id, workspace } = JSON.parse(r.stdout) as { id: string; workspace: string };
    expect(id).toMatch(/-from-stdin$/);
    await checkBrief(sb, id, workspace, task, marker);
  });

  const refusals: { name: string; args: (sb: Sandbox) => string[]; input?: Buffer | string; want: RegExp }[] =
    [
      {
        name: 'empty standard input',
        args: () => ['-'],
        input: ' \n',
        want: /^overnight: the task is empty/,
      },
      {
        name: 'a file that is not UTF-8',
        args: (sb) => {
          writeFileSync(join(sb.dir, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
          return ['--task-file', join(sb.dir, 'latin1.txt')];
        },
        want: /latin1\.txt is not UTF-8 text; save it as UTF-8 and launch again$/,
      },
      {
        name: 'a missing file',
        args: (sb) => ['--task-file', join(sb.dir, 'nope.md')],
        want: /nope\.md does not exist$/,
      },
      {
        name: 'a file and words',
        args: (sb) => {
          writeFileSync(join(sb.dir, 'b.md'), 'brief');
          return ['--task-file', join(sb.dir, 'b.md'), 'and', 'words'];
        },
        want: /give the task one way: as words, with --task-file, or as -/,
      },
      {
        name: 'an unknown --permission-mode',
        args: () => ['--permission-mode', 'yolo', 'Brief'],
        want: /^overnight: --permission-mode: permission_mode = "yolo" is not valid; expected one of acceptEdits,/,
      },
      {
        name: 'an empty --allowed-tools',
        args: () => ['--allowed-tools', ' , ', 'Brief'],
        want: /^overnight: --allowed-tools: allowed_tools = " , " is not valid; expected a list of tool names/,
      },
      {
        name: 'a brief over 2 MB',
        args: (sb) => {
          writeFileSync(join(sb.dir, 'huge.md'), 'x'.repeat(3 * 1024 * 1024));
          return ['--task-file', join(sb.dir, 'huge.md')];
        },
        want: /the task is 3\.0 MB; Claude Code refuses a prompt of about 3 MB/,
      },
    ];

  it.for(refusals)('$name → exit 2, one line, nothing created', async ({ args, input, want }, { sb }) => {
    const r = await sb.run(['launch', ...args(sb)], input === undefined ? {} : { input });
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(want);
    expect(existsSync(sb.runs) ? readdirSync(sb.runs) : []).toEqual([]);
  });
});

describe('typo guards', () => {
  it.for([
    {
      flags: ['--duration', '99999h'],
      want: /--duration 99999h is 4166d15h away; a run may last at most 31d/,
    },
    {
      flags: ['--duration', '49h'],
      want: /^overnight: --duration 49h is 2d1h away, more than 2d; add --long/,
    },
    {
      flags: ['--until', '2099-01-01T07:00'],
      want: /^overnight: --until 2099-01-01T07:00 is .* away; a run may/,
    },
  ])('$flags → exit 2, nothing created', async ({ flags, want }, { sb }) => {
    const r = await sb.run(['launch', ...flags, 'A long night']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim()).toMatch(want);
    expect(existsSync(sb.runs) ? readdirSync(sb.runs) : []).toEqual([]);
  });

  it('--long lets a long night through', async ({ sb }) => {
    sb.setBehaviour({ work: 30 });
    const before = Date.now();
    const run = await sb.launch('Three nights', ['--duration', '72h', '--long']);
    expect(new Date(run.endsAt).getTime()).toBeGreaterThanOrEqual(before + 72 * 3600_000 - 1000);
  });

  it("launch's own options after -- are the task's, with a warning", async ({ sb }) => {
    sb.setBehaviour({ work: 30 });
    const r = await sb.run(['launch', '--json', '--', '-x', '--duration', '2m']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "warning: the task holds --duration, which is launch's own: everything after `--` is the task.",
    );
    const { workspace, endsAt } = JSON.parse(r.stdout) as { workspace: string; endsAt: string };
    expect((parse(sb.read(join(records(workspace), 'run.yaml')) ?? '') as { task: string }).task).toBe(
      '-x --duration 2m',
    );
    expect(new Date(endsAt).getTime()).toBeGreaterThan(Date.now() + 7 * 3600_000);
  });
});

describe('hints', () => {
  it.for([
    { how: 'npx', env: { npm_command: 'exec', npm_lifecycle_event: 'npx' }, cmd: 'npx overnight' },
    { how: 'a command on the PATH', env: {}, cmd: 'overnight' },
  ])('run through $how, they name `$cmd`', async ({ env, cmd }, { sb }) => {
    sb.setBehaviour({ work: 30 });
    const r = await sb.run(['launch', 'Hint at me', '--name', 'hints'], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    const id = /^Launched (\S+)$/m.exec(r.stdout)?.[1] as string;
    expect(r.stdout).toContain(`  follow:    ${cmd} logs -f ${id}`);
    expect(r.stdout).toContain(`  status:    ${cmd} status ${id}`);
    expect(r.stdout).toContain(`Run \`${cmd} schedule install\`.`);
    const none = await sb.run(['status', 'nothing-here'], { env });
    expect(none.stderr).toContain(`(see \`${cmd} status --all\`)`);
  });
});
