import type { Command } from 'commander';

import type { Io } from '../app/io.js';
import type { ArchiveOptions } from '../commands/archive.js';
import type { ContinueOptions } from '../commands/continue.js';
import type { LaunchOptions } from '../commands/launch.js';
import type { RmOptions } from '../commands/rm.js';
import type { StopOptions } from '../commands/stop.js';
import { RUN, type Lazy } from './lazy.js';

// The commands that start a run and those that end or put it away (wired in src/cli.ts, in the
// order `--help` lists them).

/** A repeatable option whose values may also be comma-separated: collected in order. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** launch and continue. */
export function addStartCommands(program: Command, io: Io, lazy: Lazy): void {
  program
    .command('launch')
    .description('create a run and start the agent (in tmux, or detached where there is none)')
    .argument('[task...]', 'what the agent should do (quote it); - reads it from standard input')
    .option('--task-file <path>', 'read the task from a file (UTF-8 text), e.g. a long brief')
    .option('--duration <time>', 'how long the run may take, e.g. 8h, 90m (default 8h)')
    .option('--until <time>', 'end at HH:MM (next occurrence, local) or an ISO 8601 time')
    .option('--long', 'allow an end more than 48 hours away (a guard against typos)')
    .option('--name <name>', "the run's name: part of its id, and a handle for every command")
    .option('--repo <path>', 'work on this git repository, in a worktree on a new branch of its own')
    .option('--base <ref>', "with --repo: the branch's starting point (default: the repository's HEAD)")
    .option('--branch <name>', 'with --repo: the new branch (default overnight/<run id>)')
    .option(
      '--allowed-tools <tools>',
      'tools the agent may use without asking, comma-separated (repeatable); default: allowed_tools',
      collect,
    )
    .option('--permission-mode <mode>', 'acceptEdits, auto, default, dontAsk, plan or bypassPermissions')
    .option('--model <model>', 'model for every session, e.g. opus or sonnet')
    .option('--max-restarts <n>', 'crash restarts before the run fails (default 5)')
    .option('--max-cost <usd>', 'spend cap for the whole run in USD; the last 10 % is kept for the report')
    .option(
      '--allow-overage',
      'keep working on paid extra usage when the subscription window is spent ' +
        '(default: stop and wait for the reset)',
    )
    .option('--fallback-model <model>', 'model Claude Code switches to when the main one is overloaded')
    .option(
      '--backend <name>',
      'how sessions run: tmux, detached or slurm (default: backend in config, else tmux where installed)',
    )
    .option(
      '--verify <command>',
      'a check overnight runs at the end (and on the base commit first), e.g. "npm test"',
    )
    .option('--verify-timeout <time>', 'how long the check may run before it is killed (default 20m)')
    .option(
      '--verify-budget <time>',
      'time after the end for one fix session when the check fails (default 0)',
    )
    .option(
      '--verify-junit <path>',
      'a JUnit XML file the check writes, relative to its working directory: counts and names come from it',
    )
    .option(
      '--verify-unconfined',
      'run the check as you, unconfined, where no sandbox can hold it (it runs code the night writes)',
    )
    .option('--review', 'after the final check, a fresh session reviews the branch (a repository run)')
    .option('--review-budget <time>', 'how long the review may take (default 10m)')
    .option('--review-model <model>', "the reviewer's model (default: the run's)")
    .option(
      '--no-sandbox',
      "run the agent's commands unconfined (default: sandbox in config, else on where available)",
    )
    .option(
      '--sandbox-network <domains>',
      "domains the agent's commands may reach, comma-separated (repeatable); default: none",
      collect,
    )
    .option(
      '--wait [duration]',
      'watch the first seconds (default 20s; on a terminal without --json this is the default) ' +
        'and exit 1 with the reason if the run fails or is about to, e.g. on a refused login',
    )
    .option('--no-wait', 'do not watch the first seconds, even on a terminal')
    .option('--json', 'print {"id","workspace","session","endsAt","backend"} (and repo, branch, …)')
    .action(
      lazy(
        () => import('../commands/launch.js'),
        (m, task: string[], opts: LaunchOptions) => m.launchCommand(task, opts, io),
      ),
    );

  program
    .command('continue')
    .description(
      'start the next night of a finished run: its findings, your answers in questions.md, its report',
    )
    .argument('<run>', RUN)
    .option('--duration <time>', 'how long the new night may take, e.g. 8h (default: duration in config)')
    .option('--until <time>', 'end at HH:MM (next occurrence, local) or an ISO 8601 time')
    .option('--long', 'allow an end more than 48 hours away (a guard against typos)')
    .option('--name <name>', "the new run's name (default: the earlier run's)")
    .option('--task-file <path>', 'notes for the new night (UTF-8 text), given to the agent with the answers')
    .option('--json', 'print {"id","workspace","session","endsAt","continues","conversation",…}')
    .action(
      lazy(
        () => import('../commands/continue.js'),
        (m, run: string, opts: ContinueOptions) => m.continueCommand(run, opts, io),
      ),
    );
}

/** stop, finish, archive, unarchive, rm, pause and resume. */
export function addEndCommands(program: Command, io: Io, lazy: Lazy): void {
  program
    .command('stop')
    .description('end a run now, without a report: interrupt the agent, mark it DONE (finish writes one)')
    .argument('[run]', RUN)
    .option('--all', 'stop every unfinished run')
    .action(
      lazy(
        () => import('../commands/stop.js'),
        (m, run: string | undefined, opts: StopOptions) => m.stopCommand(run, opts, io),
      ),
    );

  program
    .command('finish')
    .description('end the night now, with a report: interrupt the agent, write REPORT.md, then DONE')
    .argument('<run>', RUN)
    .action(
      lazy(
        () => import('../commands/finish.js'),
        (m, run: string) => m.finishCommand(run, io),
      ),
    );

  program
    .command('archive')
    .description('move finished runs out of the dashboard and of every pass (status --archived lists them)')
    .argument('[run]', RUN)
    .option('--finished-before <duration>', 'every run that finished longer ago than this, e.g. 7d')
    .action(
      lazy(
        () => import('../commands/archive.js'),
        (m, run: string | undefined, opts: ArchiveOptions) => m.archiveCommand(run, opts, io),
      ),
    );

  program
    .command('unarchive')
    .description('bring an archived run back into the dashboard, where archive found it')
    .argument('<run>', RUN)
    .action(
      lazy(
        () => import('../commands/unarchive.js'),
        (m, run: string) => m.unarchiveCommand(run, io),
      ),
    );

  program
    .command('rm')
    .description('delete a finished run and its worktree (never its branch); asks first, or needs --yes')
    .argument('<run>', RUN)
    .option('--yes', 'delete without asking')
    .action(
      lazy(
        () => import('../commands/rm.js'),
        (m, run: string, opts: RmOptions) => m.rmCommand(run, opts, io),
      ),
    );

  for (const pause of [true, false]) {
    program
      .command(pause ? 'pause' : 'resume')
      .description(
        pause
          ? 'leave a run exactly as it is: no restarts, no synthesis (a live agent keeps running)'
          : 'supervise a paused run again, with a reconcile pass at once',
      )
      .argument('[run]', RUN)
      .option('--all', pause ? 'pause every run' : 'lift the pause of every run')
      .action(
        lazy(
          () => import('../commands/pause.js'),
          (m, run: string | undefined, opts: { all?: boolean }) => m.pauseCommand(pause, run, opts, io),
        ),
      );
  }
}
