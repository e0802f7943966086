import { Command, CommanderError, Option } from 'commander';

import type { Io } from './app/io.js';

// Commander wiring only: each action hands its arguments to a command module.

export function buildCli(io: Io, setExitCode: (code: number) => void): Command {
  const program = new Command('overnight')
    .description('Start a long Claude Code task in the evening; find it finished in the morning.')
    .version('0.1.0')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout(s.trimEnd()), writeErr: (s) => io.stderr(s.trimEnd()) });

  program
    .command('launch')
    .description('create a run and start the agent in tmux')
    .argument('<task...>', 'what the agent should do (quote it)')
    .option('--duration <time>', 'how long the run may take, e.g. 8h, 90m (default 8h)')
    .option('--until <time>', 'end at HH:MM (next occurrence, local) or an ISO 8601 time')
    .option('--name <slug>', 'short name for the run id (default: from the task)')
    .option('--model <model>', 'model for every session, e.g. opus or sonnet')
    .option('--max-restarts <n>', 'crash restarts before the run fails (default 5)')
    .option('--max-cost <usd>', 'spend cap for the whole run in USD; the last 10 % is kept for the report')
    .option(
      '--allow-overage',
      'keep working on paid extra usage when the subscription window is spent ' +
        '(default: stop and wait for the reset)',
    )
    .option('--fallback-model <model>', 'model Claude Code switches to when the main one is overloaded')
    .option('--json', 'print {"id","workspace","session","endsAt"}')
    .action(async (task: string[], opts) => {
      const { launchCommand } = await import('./commands/launch.js');
      setExitCode(await launchCommand(task, opts, io));
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
      'one run, with its details: times, spend, where its report and questions are ' +
        '(a unique prefix of its id is enough)',
    )
    .option('--json', 'print an array of run objects')
    .option('--all', 'include finished runs older than three days')
    .action(async (run: string | undefined, opts) => {
      const { statusCommand } = await import('./commands/status.js');
      setExitCode(await statusCommand(run, opts, io));
    });

  program
    .command('stop')
    .description('stop a run gracefully: interrupt the agent, mark it DONE')
    .argument('[run]', 'the run (a unique prefix of its id is enough)')
    .option('--all', 'stop every unfinished run')
    .action(async (run: string | undefined, opts) => {
      const { stopCommand } = await import('./commands/stop.js');
      setExitCode(await stopCommand(run, opts, io));
    });

  for (const pause of [true, false]) {
    program
      .command(pause ? 'pause' : 'resume')
      .description(
        pause
          ? 'leave a run exactly as it is: no restarts, no synthesis (a live agent keeps running)'
          : 'supervise a paused run again',
      )
      .argument('[run]', 'the run (a unique prefix of its id is enough)')
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
      'check what would break tonight: ' +
        'agent, tmux, node, schedule, credentials, permissions, runs root, config',
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

  program
    .command('logs')
    .description('what each session did: assistant text, tool calls, errors, results with cost')
    .argument('<run>', 'the run (a unique prefix of its id is enough)')
    .option('-f, --follow', 'keep printing new output until the run finishes')
    .option('--raw', 'print the stream-json as stored')
    .action(async (run: string, opts) => {
      const { logsCommand } = await import('./commands/logs.js');
      setExitCode(await logsCommand(run, opts, io, process.stdout.isTTY === true));
    });

  return program;
}

export { CommanderError };
