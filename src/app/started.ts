import { overnightSocket } from '../adapters/tmux-socket.js';
import { humanTime } from '../core/agent/briefing.js';
import { formatDuration } from '../core/config/duration.js';
import { attachCommand, tmuxSessionName } from '../core/run/naming.js';
import { runPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { safeJson, safeLine, safeText } from '../core/text.js';
import { hint, type Io } from './io.js';
import type { nightWarnings } from './night-warnings.js';

// What `launch` and `continue` print once the run has started: its JSON, or where it is, when it
// ends, how to follow and watch it, whether anything supervises it, and the warnings.

export interface Started {
  spec: RunSpec;
  root: string;
  now: Date;
  json?: boolean;
  /** The JSON's fields after id, workspace, session and endsAt (the repository's come last). */
  fields: Record<string, unknown>;
  /** The first line of the text. */
  title: string;
  /** The text's lines between the workspace and the end time. */
  details: string[];
  night: ReturnType<typeof nightWarnings>;
  warnings: string[];
}

export function printStarted(io: Io, s: Started): number {
  const { spec } = s;
  const paths = runPaths(s.root, spec.id);
  if (s.json) {
    const repo = spec.repo && {
      repo: spec.repo.path,
      branch: spec.repo.branch,
      base: spec.repo.base,
      worktree: spec.repo.worktree,
      ...(spec.repo.subdir ? { subdir: spec.repo.subdir } : {}),
    };
    const out = {
      id: spec.id,
      workspace: paths.workspace,
      session: tmuxSessionName(spec.id),
      endsAt: spec.endsAt.toISOString(),
      ...s.fields,
    };
    io.stdout(safeJson({ ...out, ...repo }));
    for (const w of s.warnings) io.stderr(w);
    return 0;
  }
  // Paths, names and reasons come from files, the environment and the person: nothing reaches
  // the terminal as control.
  const say = (line: string) => io.stdout(safeLine(line));
  say(s.title);
  say(`  workspace: ${paths.workspace}`);
  for (const line of s.details) say(line);
  const remaining = formatDuration((spec.endsAt.getTime() - s.now.getTime()) / 1000);
  say(`  ends:      ${humanTime(spec.endsAt)} (in ${remaining})`);
  say(`  follow:    ${hint(io, `logs -f ${spec.id}`)}`);
  // Detached, following the log is the way to watch: said once, not twice.
  if (spec.backend === 'tmux')
    say(`  watch:     ${attachCommand(spec.id, spec.paths.tmuxSocket, overnightSocket(io.env))}`);
  else say(`  backend:   ${spec.backend} (no terminal to attach to; follow the log)`);
  say(`  status:    ${hint(io, `status ${spec.id}`)}`);
  if (!s.night.supervision)
    say(`Supervised by ${s.night.schedule ?? 'the schedule'}: \`${hint(io, 'status')}\` in the morning.`);
  for (const w of s.warnings) io.stdout(safeText(w));
  return 0;
}
