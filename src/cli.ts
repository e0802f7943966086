import { Command, CommanderError, Option } from 'commander';

import type { Io } from './app/io.js';
import { lazyActions, RUN, type Lazy } from './cli/lazy.js';
import { addEndCommands, addStartCommands } from './cli/run-commands.js';
import type { DigestOptions } from './commands/digest.js';
import type { DoctorOptions } from './commands/doctor.js';
import type { LogsOptions } from './commands/logs.js';
import type { NotifyOptions } from './commands/notify.js';
import type { ReconcileOptions } from './commands/reconcile.js';
import type { ScheduleOptions } from './commands/schedule.js';
import type { StatusOptions } from './commands/status.js';

// Commander wiring only: each action hands its arguments to a command module.

/**
 * The program, or, when `args` (the line after `overnight`) starts with a command's name, the
 * program with only that command wired: making Commander's options is a few ms of every pass.
 * Anything else (help, a typo, a bare `overnight`) gets every command.
 */
export function buildCli(io: Io, setExitCode: (code: number) => void, args?: readonly string[]): Command {
  const program = new Command('overnight')
    .description('Start a long Claude Code task in the evening; find it finished in the morning.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) });
  const lazy = lazyActions(setExitCode);
  const only = args?.[0] && /^[a-z]+$/.test(args[0]) ? args[0] : null;
  if (only === null) {
    wire(program, io, lazy);
    return program;
  }
  let matched = false;
  // Every other command is made on a stand-in that takes any call and does nothing.
  const nothing: Command = new Proxy({} as Command, { get: () => () => nothing });
  const one = new Proxy(program, {
    get: (target, key) =>
      key === 'command'
        ? (name: string, ...rest: unknown[]) => {
            if (name !== only) return nothing;
            matched = true;
            return (target.command as (...a: unknown[]) => Command)(name, ...rest);
          }
        : Reflect.get(target, key),
  });
  wire(one, io, lazy);
  return matched ? program : buildCli(io, setExitCode);
}

function wire(program: Command, io: Io, lazy: Lazy): void {
  addStartCommands(program, io, lazy);

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
      new Option('--for-run <id>', 'the run whose agent has just ended (used by the wrapper)').hideHelp(),
    )
    .addOption(
      new Option(
        '--scheduled',
        'the pass was started by the installed schedule (recorded in the heartbeat)',
      ).hideHelp(),
    )
    .action(
      lazy(
        () => import('./commands/reconcile.js'),
        (m, opts: ReconcileOptions) => m.reconcileCommand(opts, io),
      ),
    );

  program
    .command('status')
    .description('the morning dashboard: every run, its state and what needs you')
    .argument(
      '[run]',
      'one run, with its details: times, spend, where its report and questions are, its branch ' +
        '(its id, a unique prefix of it, its --name, or words of its id)',
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
    .action(
      lazy(
        () => import('./commands/status.js'),
        (m, run: string | undefined, opts: StatusOptions) => m.statusCommand(run, opts, io),
      ),
    );

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
    .action(
      lazy(
        () => import('./commands/digest.js'),
        (m, opts: DigestOptions) => m.digestCommand(opts, io),
      ),
    );

  addEndCommands(program, io, lazy);

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
    .action(
      lazy(
        () => import('./commands/schedule.js'),
        (m, opts: ScheduleOptions) => m.scheduleCommand('install', opts, io),
      ),
    );
  for (const [action, description] of [
    ['uninstall', 'remove exactly what install wrote'],
    ['status', 'which backend holds an entry, its interval, and when the last pass ran'],
  ] as const) {
    schedule
      .command(action)
      .description(description)
      .option('--backend <backend>', 'only this backend: cron, launchd or systemd')
      .option('--json', 'print the result as JSON')
      .action(
        lazy(
          () => import('./commands/schedule.js'),
          (m, opts: ScheduleOptions) => m.scheduleCommand(action, opts, io),
        ),
      );
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
    .action(
      lazy(
        () => import('./commands/doctor.js'),
        (m, opts: DoctorOptions) => m.doctorCommand(opts, io),
      ),
    );

  const notify = program
    .command('notify')
    .description('notifications of runs that finish, fail or need you (the notify: list in config.yaml)');
  notify
    .command('test')
    .description('send a test notification to every target and say what each answered')
    .option('--json', 'print [{"target","kind","ok","answer"|"error"}]')
    .action(
      lazy(
        () => import('./commands/notify.js'),
        (m, opts: NotifyOptions) => m.notifyTestCommand(opts, io),
      ),
    );
  // The sender a pass starts detached, so that a pass killed mid-request does not take it along.
  notify
    .command('deliver', { hidden: true })
    .description('send the notifications that are due')
    .action(
      lazy(
        () => import('./commands/notify.js'),
        (m) => m.notifyDeliverCommand(io),
      ),
    );

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
    .action(
      lazy(
        () => import('./commands/logs.js'),
        (m, run: string, opts: LogsOptions) => m.logsCommand(run, opts, io, io.stdoutIsTty === true),
      ),
    );
}

export { CommanderError };
