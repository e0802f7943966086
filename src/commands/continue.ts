import type { Io } from '../app/io.js';
import { nightWarnings } from '../app/night-warnings.js';
import { printStarted } from '../app/started.js';
import { UsageError } from '../core/errors.js';
import { plural, safeLine } from '../core/text.js';
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
  const report = c.report ? ', its report as previous/REPORT.md' : ', no report (it left none)';
  const answered = `${plural(c.answered.length, 'answered question')} (${c.open} still open)`;
  const details = [
    `  carried:   ${plural(findings, 'finding')}, ${answered}${report}`,
    c.fork
      ? `  context:   its conversation, resumed in a copy (${from.id}'s own stays as it was)`
      : `  context:   a fresh conversation, handed over (${c.why ?? 'no conversation to resume'})`,
  ];
  if (spec.repo)
    details.push(
      `  branch:    ${spec.repo.branch}, carried on from ${spec.repo.base.slice(0, 12)}`,
      `  worktree:  ${spec.repo.worktree} (the agent works here)`,
    );
  return printStarted(io, {
    spec,
    root,
    now,
    json: opts.json,
    fields: {
      continues: from.id,
      conversation,
      answered: c.answered.length,
      openQuestions: c.open,
      findings,
      previousReport: c.report,
    },
    title: `Continued ${from.id} as ${spec.id}`,
    details,
    night,
    warnings,
  });
}
