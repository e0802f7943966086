import { overnightSocket } from '../adapters/tmux-socket.js';
import { hint, type Io } from '../app/io.js';
import { nightWarnings } from '../app/night-warnings.js';
import { humanTime } from '../core/agent/briefing.js';
import { formatDuration } from '../core/config/duration.js';
import { UsageError } from '../core/errors.js';
import { attachCommand, tmuxSessionName } from '../core/run/naming.js';
import { runPaths } from '../core/run/paths.js';
import { plural, safeJson, safeLine, safeText } from '../core/text.js';
import { continueRun } from '../runs/continue.js';
import { readTaskFile } from '../runs/task.js';

// `overnight continue <run>`: the next night of a finished run, from its findings and your answers.

export interface ContinueOptions {
  duration?: string;
  until?: string;
  long?: boolean;
  name?: string;
  taskFile?: string;
  json?: boolean;
}

export async function continueCommand(run: string, opts: ContinueOptions, io: Io): Promise<number> {
  const notes = opts.taskFile === undefined ? undefined : readTaskFile(opts.taskFile);
  if (notes !== undefined && notes.trim() === '')
    throw new UsageError(
      `--task-file ${opts.taskFile} is empty; write the notes for the night in it, or leave it out`,
    );
  const {
    spec,
    root,
    from,
    continuation: c,
    findings,
    skipped,
  } = await continueRun({ ...opts, run, notes }, io);
  const now = io.now();
  const paths = runPaths(root, spec.id);
  const night = nightWarnings(io, root, now);
  const conversation = c.fork ? 'resumed' : 'handed over';
  const warnings = [...night.warnings];
  if (c.answered.length === 0)
    warnings.push(
      `note: no question in ${from.workspace}/questions.md has an answer (a line "Answer: ..." under it); ` +
        'the follow-up carries on from the findings and its best guesses',
    );
  if (skipped.length > 0) {
    const shown = skipped.slice(0, 8).join(', ');
    const more = skipped.length > 8 ? `, and ${skipped.length - 8} more` : '';
    warnings.push(
      safeLine(
        `note: not carried from ${from.id}, as they are links or not regular files (never followed): ` +
          `${shown}${more}`,
      ),
    );
  }
  if (opts.json) {
    const repo = spec.repo && {
      repo: spec.repo.path,
      branch: spec.repo.branch,
      base: spec.repo.base,
      worktree: spec.repo.worktree,
    };
    const out = {
      id: spec.id,
      workspace: paths.workspace,
      session: tmuxSessionName(spec.id),
      endsAt: spec.endsAt.toISOString(),
      continues: from.id,
      conversation,
      answered: c.answered.length,
      openQuestions: c.open,
      findings,
      previousReport: c.report,
    };
    io.stdout(safeJson({ ...out, ...repo }));
    for (const w of warnings) io.stderr(w);
    return 0;
  }
  // Paths, names and reasons come from files and the person: nothing reaches the terminal as control.
  const say = (line: string) => io.stdout(safeLine(line));
  say(`Continued ${from.id} as ${spec.id}`);
  say(`  workspace: ${paths.workspace}`);
  const report = c.report ? ', its report as previous/REPORT.md' : ', no report (it left none)';
  const answered = `${plural(c.answered.length, 'answered question')} (${c.open} still open)`;
  say(`  carried:   ${plural(findings, 'finding')}, ${answered}${report}`);
  say(
    c.fork
      ? `  context:   its conversation, resumed in a copy (${from.id}'s own stays as it was)`
      : `  context:   a fresh conversation, handed over (${c.why ?? 'no conversation to resume'})`,
  );
  if (spec.repo) {
    say(`  branch:    ${spec.repo.branch}, carried on from ${spec.repo.base.slice(0, 12)}`);
    say(`  worktree:  ${spec.repo.worktree} (the agent works here)`);
  }
  const remaining = formatDuration((spec.endsAt.getTime() - now.getTime()) / 1000);
  say(`  ends:      ${humanTime(spec.endsAt)} (in ${remaining})`);
  say(`  follow:    ${hint(io, `logs -f ${spec.id}`)}`);
  // Detached, following the log is the way to watch: said once, not twice.
  if (spec.backend === 'tmux')
    say(`  watch:     ${attachCommand(spec.id, spec.paths.tmuxSocket, overnightSocket(io.env))}`);
  else say(`  backend:   ${spec.backend} (no terminal to attach to; follow the log)`);
  say(`  status:    ${hint(io, `status ${spec.id}`)}`);
  if (!night.supervision)
    say(`Supervised by ${night.schedule ?? 'the schedule'}: \`${hint(io, 'status')}\` in the morning.`);
  for (const w of warnings) io.stdout(safeText(w));
  return 0;
}
