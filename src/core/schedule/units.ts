import { formatDuration } from '../config/duration.js';
import { checkValues, scheduleEnv, scheduleNames, type ScheduleValues } from './cron.js';

// The launchd LaunchAgent and the systemd user units, as text. Pure, like ./schedule.ts.

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The LaunchAgent for one runs root; `comment` (plain lines) goes into an XML comment on top. */
export function launchdPlist(v: ScheduleValues, comment?: string): string {
  checkValues(v);
  const names = scheduleNames(v.runsRoot, v.defaultRoot);
  const note =
    comment ??
    'Written by `overnight schedule install`: ' +
      `one reconcile pass every ${formatDuration(v.everySeconds)} over ${v.runsRoot}.\n` +
      '`overnight schedule uninstall` boots it out and removes this file.';
  // "--" may not appear inside an XML comment.
  const commentLines = note
    .replace(/--/g, '- -')
    .split('\n')
    .map((l) => (l === '' ? '' : `  ${l}`));
  const env = scheduleEnv(v).flatMap(([name, value]) => [
    `    <key>${xml(name)}</key>`,
    `    <string>${xml(value)}</string>`,
  ]);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<!--',
    ...commentLines,
    '-->',
    '<plist version="1.0">',
    '<dict>',
    '  <key>Label</key>',
    `  <string>${xml(names.label)}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    `    <string>${xml(v.node)}</string>`,
    `    <string>${xml(v.cli)}</string>`,
    '    <string>reconcile</string>',
    '    <string>--scheduled</string>',
    '  </array>',
    '  <key>EnvironmentVariables</key>',
    '  <dict>',
    ...env,
    '  </dict>',
    '  <key>StartInterval</key>',
    `  <integer>${v.everySeconds}</integer>`,
    '  <key>RunAtLoad</key>',
    '  <true/>',
    '  <key>StandardOutPath</key>',
    `  <string>${xml(names.log)}</string>`,
    '  <key>StandardErrorPath</key>',
    `  <string>${xml(names.log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** StartInterval of a plist we wrote; null when there is none. */
export function parsePlistInterval(text: string): number | null {
  const m = /<key>StartInterval<\/key>\s*<integer>(\d+)<\/integer>/.exec(text);
  return m ? Number(m[1]) : null;
}

/** systemd expands %specifiers everywhere and $VARIABLES in ExecStart: both are doubled. */
function unitEscape(text: string, dollars: boolean): string {
  const s = text.replace(/%/g, '%%');
  return dollars ? s.replace(/\$/g, '$$$$') : s;
}

/** One word of ExecStart or one Environment= assignment: double-quoted when it needs to be. */
function unitWord(word: string, dollars: boolean): string {
  const s = unitEscape(word, dollars);
  return /^[A-Za-z0-9_/.,:@+=%$-]+$/.test(s) ? s : `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export interface SystemdUnits {
  service: string;
  timer: string;
}

/** The user service (one pass) and the timer that starts it every interval. */
export function systemdUnits(v: ScheduleValues): SystemdUnits {
  checkValues(v);
  const names = scheduleNames(v.runsRoot, v.defaultRoot);
  const every = formatDuration(v.everySeconds);
  const written =
    '# Written by `overnight schedule install`; `overnight schedule uninstall` disables and removes it.';
  const service = [
    written,
    '[Unit]',
    `Description=overnight: one reconcile pass over ${unitEscape(v.runsRoot, false)}`,
    '',
    '[Service]',
    'Type=oneshot',
    // A pass may start the tmux server that holds the agents: it must outlive the pass.
    'KillMode=process',
    ...scheduleEnv(v).map(([name, value]) => `Environment=${unitWord(`${name}=${value}`, false)}`),
    `ExecStart=${[v.node, v.cli, 'reconcile', '--scheduled'].map((w) => unitWord(w, true)).join(' ')}`,
    `StandardOutput=append:${unitEscape(names.log, false)}`,
    `StandardError=append:${unitEscape(names.log, false)}`,
    '',
  ].join('\n');
  const timer = [
    written,
    '[Unit]',
    `Description=overnight: a reconcile pass every ${every} over ${unitEscape(v.runsRoot, false)}`,
    '',
    '[Timer]',
    `Unit=${names.unit}.service`,
    // A first pass a minute after the user manager starts (login or boot with linger), then one
    // per interval. No Persistent=: its stamp can leave an interval-only timer with nothing to count from.
    'OnStartupSec=1min',
    `OnUnitActiveSec=${v.everySeconds}s`,
    'AccuracySec=1s',
    '',
    '[Install]',
    'WantedBy=timers.target',
    '',
  ].join('\n');
  return { service, timer };
}

/** OnUnitActiveSec of a timer we wrote; null when there is none. */
export function parseTimerInterval(text: string): number | null {
  const m = /^OnUnitActiveSec=(\d+)s?\s*$/m.exec(text);
  return m ? Number(m[1]) : null;
}
