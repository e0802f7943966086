import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, test } from 'vitest';

import type { Io } from '../../src/app/io.js';
import { buildCli } from '../../src/cli.js';
import { anchorsOf, codeOf, flagsOf, linksOf, overnightCommands, words } from '../helpers/markdown.js';

// The README and docs/ say what runs as written: every `overnight …` line they show names a command
// the CLI has and only options that command (or the program) takes, and every link among them
// leads to a file that exists and, with an anchor, to a heading of that page.

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

// Written by the results pages' own change (the latest bench and chaos figures); a link to them is
// taken on trust until they are there.
const WRITTEN_ELSEWHERE = new Set(['bench/RESULTS.md', 'chaos/RESULTS.md']);

const io: Io = { stdout: () => {}, stderr: () => {}, env: {}, now: () => new Date(0) };
const program = buildCli(io, () => {});
const SUBCOMMANDS = new Set(program.commands.flatMap((c) => c.commands.map((s) => s.name())));
const namesOf = (c: Command) => c.options.flatMap((o) => [o.long, o.short]).filter((n): n is string => !!n);

/** What is wrong with one command line of the docs, or null when it runs as written. */
function problemOf(command: readonly string[]): string | null {
  const [, name = '', sub] = command;
  // `overnight <command> --help`: any command, so the program's options only.
  let cmd = /^<.+>$/.test(name) ? program : program.commands.find((c) => c.name() === name);
  if (!cmd) return `no command "${name}"`;
  const parents = [program];
  if (cmd.commands.length > 0 && sub !== undefined && !sub.startsWith('-')) {
    const child = cmd.commands.find((c) => c.name() === sub);
    if (!child) return `no command "${name} ${sub}"`;
    parents.push(cmd);
    cmd = child;
  }
  const known = new Set(['-h', '--help', ...namesOf(cmd), ...parents.flatMap(namesOf)]);
  const unknown = flagsOf(command.slice(2)).filter((f) => !known.has(f));
  return unknown.length > 0 ? `${cmd.name()} has no option ${unknown.join(', ')}` : null;
}

describe('the command lines of the docs', () => {
  const lines = PAGES.flatMap((f) => codeOf(f, read(f)));
  // A bare `overnight` names the program, not a command line.
  const commands = lines.flatMap((l) =>
    overnightCommands(l.text, SUBCOMMANDS)
      .filter((c) => c.length > 1)
      .map((c) => ({ ...l, c })),
  );

  test('there are many, from the README and from docs/', () => {
    expect(commands.filter((c) => c.file === 'README.md').length).toBeGreaterThan(10);
    expect(commands.filter((c) => c.file.startsWith('docs/')).length).toBeGreaterThan(50);
  });

  test('each names a command and options it has', () => {
    const bad = commands.flatMap(({ file, line, text, c }) => {
      const problem = problemOf(c);
      return problem ? [`${file}:${line}: ${problem}: ${text}`] : [];
    });
    expect(bad).toEqual([]);
  });

  test.each<{ name: string; line: string; want: string | null }>([
    { name: 'a placeholder and options', line: 'overnight logs <run> -f --all', want: null },
    { name: 'an option with a value', line: 'overnight launch "x" --wait=30s --no-wait', want: null },
    { name: "a synopsis's or", line: 'overnight stop <run> | --all', want: null },
    { name: 'a subcommand', line: 'overnight schedule install --every 5m', want: null },
    { name: 'a program option', line: 'overnight status --help', want: null },
    { name: 'any command', line: 'overnight <command> --help', want: null },
    { name: 'words of the task after --', line: 'overnight launch -- fix --frobnicate', want: null },
    {
      name: 'an option of another command',
      line: 'overnight status --yes',
      want: 'status has no option --yes',
    },
    {
      name: 'an option in brackets',
      line: 'overnight launch [--verfy <cmd>]',
      want: 'launch has no option --verfy',
    },
    { name: 'no such command', line: 'overnight nap <run>', want: 'no command "nap"' },
    { name: 'no such subcommand', line: 'overnight schedule list', want: 'no command "schedule list"' },
  ])('$name', ({ line, want }) => {
    const [command] = overnightCommands(line, SUBCOMMANDS);
    expect(problemOf(command ?? [])).toBe(want);
  });

  test.each<{ name: string; line: string; want: string[][] }>([
    { name: 'after &&', line: 'npm i && overnight doctor --json', want: [['overnight', 'doctor', '--json']] },
    {
      name: 'before a pipe',
      line: 'overnight status --json | jq -r .x',
      want: [['overnight', 'status', '--json']],
    },
    { name: 'before a comment', line: 'overnight status   # the dashboard', want: [['overnight', 'status']] },
    { name: 'a quoted task', line: 'overnight launch "a --b"', want: [['overnight', 'launch', 'a --b']] },
    { name: 'another program', line: 'tmux -L overnight attach', want: [] },
  ])('cut: $name', ({ line, want }) => {
    expect(overnightCommands(line, SUBCOMMANDS)).toEqual(want);
  });

  test('words keep quoted text together', () => {
    expect(words(`a "b c" 'd e'f`)).toEqual(['a', 'b c', 'd ef']);
  });
});

describe('the links of the docs', () => {
  test('each leads to a file that exists, and to a heading of it', () => {
    const bad = PAGES.flatMap((file) =>
      linksOf(read(file)).flatMap(({ line, target }) => {
        if (/^[a-z]+:/.test(target)) return [];
        const [path = '', anchor] = target.split('#');
        const to = path ? relative(ROOT, join(ROOT, dirname(file), path)) : file;
        if (WRITTEN_ELSEWHERE.has(to) && !existsSync(join(ROOT, to))) return [];
        if (!existsSync(join(ROOT, to))) return [`${file}:${line}: ${target}: no such file`];
        if (anchor && !(to.endsWith('.md') && anchorsOf(read(to)).has(anchor))) {
          return [`${file}:${line}: ${target}: no such heading`];
        }
        return [];
      }),
    );
    expect(bad).toEqual([]);
  });

  test.each<{ heading: string; want: string }>([
    { heading: '## The next night: continue', want: 'the-next-night-continue' },
    { heading: "## A run's directory", want: 'a-runs-directory' },
    { heading: '## result.json', want: 'resultjson' },
    { heading: '### schedule install, uninstall, status', want: 'schedule-install-uninstall-status' },
  ])('the anchor of $heading', ({ heading, want }) => {
    expect([...anchorsOf(`${heading}\n`)]).toEqual([want]);
  });
});
