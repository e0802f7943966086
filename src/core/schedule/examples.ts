import { buildPath, cronBlock, SYSTEM_PATH_DIRS, type ScheduleValues } from './cron.js';
import { launchdPlist } from './units.js';

// The repository's crontab.example and launchd/dev.overnight.reconcile.plist: the same generators
// as `schedule install`, with placeholders for the absolute paths (a unit test keeps them equal).

const PLACEHOLDERS = {
  node: '/ABSOLUTE/PATH/TO/node',
  cli: '/ABSOLUTE/PATH/TO/overnight/bin/overnight.js',
  dirs: ['/DIR/OF/node', '/DIR/OF/tmux', '/DIR/OF/claude'],
};

function exampleValues(home: string, extraDirs: string[]): ScheduleValues {
  return {
    node: PLACEHOLDERS.node,
    cli: PLACEHOLDERS.cli,
    runsRoot: `${home}/overnight-runs`,
    defaultRoot: true,
    path: buildPath([...PLACEHOLDERS.dirs, ...extraDirs, ...SYSTEM_PATH_DIRS]),
    everySeconds: 300,
  };
}

const CRON_HEADER = `# overnight: one reconcile pass every 5 minutes, from cron.
#
# Easiest: \`overnight schedule install --backend cron\` writes the block below into your crontab
# with the real paths, and \`overnight schedule uninstall\` removes it again. This file comes from
# the same code, with placeholders. To add it by hand (\`crontab -e\`), copy the block and replace
#   /ABSOLUTE/PATH/TO/node                        with the output of: command -v node
#   /ABSOLUTE/PATH/TO/overnight/bin/overnight.js  with the output of: realpath bin/overnight.js
#   /DIR/OF/node, /DIR/OF/tmux, /DIR/OF/claude    with the directories of those programs
#   /home/YOU                                     with your home directory
# Keep the begin and end lines: install and uninstall find the block by them.
#
# Why absolute paths and an explicit PATH: cron starts jobs with a minimal environment (PATH is
# often just /usr/bin:/bin), which finds neither a node installed by a version manager nor the
# overnight CLI. Each run also records the absolute paths of claude and tmux at launch. The agent
# runs with the environment captured when the run was launched (credentials included), so a
# restart from cron sees the same ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN.
# If your runs live elsewhere, add OVERNIGHT_HOME=/ABSOLUTE/PATH/TO/runs after PATH=... and use
# that directory in the begin and end lines and in the log path.
#
# Besides this timer, each agent's wrapper starts a pass the moment the agent exits, so a crash
# is usually handled within seconds; cron is the backstop (reboots, killed wrappers, end times).
`;

const PLIST_COMMENT = `overnight: one reconcile pass every 5 minutes, as a LaunchAgent.

Easiest: \`overnight schedule install\` writes this file with the real paths into
~/Library/LaunchAgents/ and bootstraps it; \`overnight schedule uninstall\` removes it again.
This file comes from the same code, with placeholders. To install it by hand, replace
/ABSOLUTE/PATH/TO/node (command -v node), /ABSOLUTE/PATH/TO/overnight/bin/overnight.js
(realpath bin/overnight.js), /DIR/OF/node, /DIR/OF/tmux and /DIR/OF/claude (the directories
of those programs) and /Users/YOU, then:
  cp launchd/dev.overnight.reconcile.plist ~/Library/LaunchAgents/
  launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/dev.overnight.reconcile.plist

Why absolute paths: launchd starts jobs with almost no environment (no shell profile, a PATH
of /usr/bin:/bin:/usr/sbin:/sbin), so a node from Homebrew or a version manager is not found.
Each run also records the absolute paths of claude and tmux at launch. If your runs live
elsewhere, add OVERNIGHT_HOME (the runs directory) to EnvironmentVariables and use that
directory in the log paths.
launchd jobs cannot read the login keychain reliably: launch runs with ANTHROPIC_API_KEY or a
CLAUDE_CODE_OAUTH_TOKEN from \`claude setup-token\` in the environment (overnight keeps the
launch environment for every restart).`;

/** The text of crontab.example. */
export function exampleCrontab(): string {
  return `${CRON_HEADER}\n${cronBlock(exampleValues('/home/YOU', []))}\n`;
}

/** The text of launchd/dev.overnight.reconcile.plist. */
export function examplePlist(): string {
  return launchdPlist(exampleValues('/Users/YOU', ['/opt/homebrew/bin']), PLIST_COMMENT);
}
