import { Command, CommanderError, Option } from 'commander';

import type { Io } from './app/io.js';

// Commander wiring only: each action hands its arguments to a command module.

const RUN = 'the run: its id, a unique prefix of it, or the --name it was given';

/** A repeatable option whose values may also be comma-separated: collected in order. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

export function buildCli(io: Io, setExitCode: (code: number) => void): Command {
  const program = new Command('overnight')
    .description('Start a long Claude Code task in the evening; find it finished in the morning.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) });

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
    .option('--json', 'print {"id","workspace","session","endsAt","backend"} (and repo, branch, …)')
    .action(async (task: string[], opts) => {
      const { launchCommand } = await import('./commands/launch.js');
      setExitCode(await launchCommand(task, opts, io));
    });

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
    .action(async (run: string, opts) => {
      const { continueCommand } = await import('./commands/continue.js');
      setExitCode(await continueCommand(run, opts, io));
    });

  program
    .command('reconcile')
    .description('one pass over every unfinished run: resume, synthesize, finish (run it from cron)')
    .option('--dry-run', 'print the decisions without acting')
    .option('--json', 'print the outcomes as JSON')
    .addOption(
      new Option('--retry-lock <ms>', 'keep trying for a held lock (used by the wrapper)')
        .argParser(Number)
        .hideHelp(),
    )
    .addOption(
      new Option(
        '--scheduled',
        'the pass was started by the installed schedule (recorded in the heartbeat)',
      ).hideHelp(),
    )
    .action(async (opts) => {
      const { reconcileCommand } = await import('./commands/reconcile.js');
      setExitCode(await reconcileCommand(opts, io));
    });

  program
    .command('status')
    .description('the morning dashboard: every run, its state and what needs you')
    .argument(
      '[run]',
      'one run, with its details: times, spend, where its report and questions are, its branch ' +
        '(its id, a unique prefix of it, or its --name)',
    )
    .option('--json', 'print an array of run objects (every run, unless --since or --state)')
    .option('--all', 'list every run, also finished runs that need nothing and those older than three days')
    .option('--since <when>', 'finished runs since then: a duration ago (7d, 36h) or a date (2026-11-20)')
    .option('--state <states>', 'only runs in these states, e.g. failed or running,waiting')
    .option('--archived', 'the archived runs instead')
    .option('--wide', "every cell whole, however wide the terminal (the table fits the terminal's width)")
    .option('--no-color', 'no colour (NO_COLOR=1 does the same)')
    .option(
      '--check',
      'exit 1 when any run needs you (failed, no report, …), else 0: for scripts and prompts',
    )
    .action(async (run: string | undefined, opts) => {
      const { statusCommand } = await import('./commands/status.js');
      setExitCode(await statusCommand(run, opts, io));
    });

  program
    .command('digest')
    .description(
      'the morning digest: how each run of the night went, its report and cost, the open questions',
    )
    .option(
      '--since <time>',
      'the window: runs still going, and those that ended or changed since, e.g. 12h, 3d or an ISO time',
      '24h',
    )
    .option('--html <file>', 'write it as one self-contained HTML page instead')
    .option(
      '--open',
      'open the page in the default browser (written to digest.html in the runs root without --html)',
    )
    .action(async (opts) => {
      const { digestCommand } = await import('./commands/digest.js');
      setExitCode(await digestCommand(opts, io));
    });

  program
    .command('stop')
    .description('end a run now, without a report: interrupt the agent, mark it DONE (finish writes one)')
    .argument('[run]', RUN)
    .option('--all', 'stop every unfinished run')
    .action(async (run: string | undefined, opts) => {
      const { stopCommand } = await import('./commands/stop.js');
      setExitCode(await stopCommand(run, opts, io));
    });

  program
    .command('finish')
    .description('end the night now, with a report: interrupt the agent, write REPORT.md, then DONE')
    .argument('<run>', RUN)
    .action(async (run: string) => {
      const { finishCommand } = await import('./commands/finish.js');
      setExitCode(await finishCommand(run, io));
    });

  program
    .command('archive')
    .description('move finished runs out of the dashboard and of every pass (status --archived lists them)')
    .argument('[run]', RUN)
    .option('--finished-before <duration>', 'every run that finished longer ago than this, e.g. 7d')
    .action(async (run: string | undefined, opts) => {
      const { archiveCommand } = await import('./commands/archive.js');
      setExitCode(await archiveCommand(run, opts, io));
    });

  program
    .command('rm')
    .description('delete a finished run and its worktree (never its branch); asks first, or needs --yes')
    .argument('<run>', RUN)
    .option('--yes', 'delete without asking')
    .action(async (run: string, opts) => {
      const { rmCommand } = await import('./commands/rm.js');
      setExitCode(await rmCommand(run, opts, io));
    });

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
      .action(async (run: string | undefined, opts) => {
        const { pauseCommand } = await import('./commands/pause.js');
        setExitCode(await pauseCommand(pause, run, opts, io));
      });
  }

  const schedule = program
    .command('schedule')
    .description('run `overnight reconcile` every few minutes from cron, launchd or a systemd user timer');
  schedule
    .command('install')
    .description('install or update the entry (idempotent; a changed interval replaces it)')
    .option(
      '--every <interval>',
      'how often a pass runs, e.g. 5m (cron: whole minutes up to 59m, or whole hours)',
      '5m',
    )
    .option(
      '--backend <backend>',
      'cron, launchd or systemd ' +
        '(default: launchd on macOS; systemd when `systemctl --user` works, else cron)',
    )
    .option('--json', 'print {"backend","everySeconds","runsRoot","where","log","path","installedAt"}')
    .action(async (opts) => {
      const { scheduleCommand } = await import('./commands/schedule.js');
      setExitCode(await scheduleCommand('install', opts, io));
    });
  for (const [action, description] of [
    ['uninstall', 'remove exactly what install wrote'],
    ['status', 'which backend holds an entry, its interval, and when the last pass ran'],
  ] as const) {
    schedule
      .command(action)
      .description(description)
      .option('--backend <backend>', 'only this backend: cron, launchd or systemd')
      .option('--json', 'print the result as JSON')
      .action(async (opts) => {
        const { scheduleCommand } = await import('./commands/schedule.js');
        setExitCode(await scheduleCommand(action, opts, io));
      });
  }

  program
    .command('doctor')
    .description(
      'check what would break tonight: agent, tmux, node, schedule, ' +
        'credentials, permissions, runs root, config, notification targets',
    )
    .option('--json', 'print {"checks": [...], "summary": {...}}')
    .option(
      '--as-scheduler',
      'run the checks in the minimal environment the installed schedule gives (like env -i)',
    )
    .action(async (opts) => {
      const { doctorCommand } = await import('./commands/doctor.js');
      setExitCode(await doctorCommand(opts, io));
    });

  const notify = program
    .command('notify')
    .description('notifications of runs that finish, fail or need you (the notify: list in config.yaml)');
  notify
    .command('test')
    .description('send a test notification to every target and say what each answered')
    .option('--json', 'print [{"target","kind","ok","answer"|"error"}]')
    .action(async (opts) => {
      const { notifyTestCommand } = await import('./commands/notify.js');
      setExitCode(await notifyTestCommand(opts, io));
    });
  // The sender a pass starts detached, so that a pass killed mid-request does not take it along.
  notify
    .command('deliver', { hidden: true })
    .description('send the notifications that are due')
    .action(async () => {
      const { notifyDeliverCommand } = await import('./commands/notify.js');
      setExitCode(await notifyDeliverCommand(io));
    });

  program
    .command('logs')
    .description(
      'what the agent did: assistant text, tool calls, errors, results with cost ' +
        "(the current session's last lines, unless --all)",
    )
    .argument('<run>', RUN)
    .option('-n, --lines <n>', "how many of the current session's last lines to show (default 40)")
    .option('--all', 'every session from the start')
    .option('-f, --follow', 'keep printing new output until the run finishes')
    .option('--raw', 'print the stream-json as stored')
    .action(async (run: string, opts) => {
      const { logsCommand } = await import('./commands/logs.js');
      setExitCode(await logsCommand(run, opts, io, process.stdout.isTTY === true));
    });

  return program;
}

export { CommanderError };
