import type { Continuation } from '../run/continuation.js';
import { plural } from '../text.js';
import { fenceFor, TASK_IN_PROMPT_MAX, taskPart } from './briefing.js';
import type { RunFiles } from './run-files.js';

// What a follow-up run (`overnight continue`) tells its agent: the briefing's section on the run
// it continues, and the first prompt, resumed in the earlier conversation or handed over to a
// fresh one. Pure.

/** One answer longer than this is cut in a prompt (questions.md holds it whole). */
const ANSWER_MAX = 2000;
/** All answers together; beyond, the rest are named by title only. */
const ANSWERS_MAX = 32 * 1024;

/** CLAUDE.md's section for a follow-up: what it started from, and the person's notes, verbatim. */
export function continuedSection(c: Continuation, f: RunFiles, repo: boolean): string {
  const report = c.report
    ? `- \`${f.previousReport}\`: its report.`
    : '- It left no report: its findings and questions are what it found.';
  const elsewhere = repo
    ? `directory (\`${c.fromWorkspace}\`) or its worktree`
    : `directory (\`${c.fromWorkspace}\`)`;
  const notes =
    c.notes === null
      ? ''
      : `\n### Notes for this night\n\nThe person's notes, exactly as given:\n\n` +
        `${fenceFor(c.notes)}text\n${c.notes}\n${fenceFor(c.notes)}\n`;
  return `## Continued from ${c.from}

This run follows up an earlier overnight run on the same task, \`${c.from}\`, which ended:
${c.ended || 'finished'}. It starts from copies of what that run left (its own files stay as they were):

- \`${f.findings}\`: its findings. Build on them, and update a finding when you learn more.
- \`${f.questions}\`: its questions. A question with an \`Answer:\` line was answered by the person:
  take the answer into account and do not ask it again.
${report}

Never write in the earlier run's ${elsewhere}: everything of this run goes here.
${notes}`;
}

/** The answers, numbered, each cut at ANSWER_MAX; past ANSWERS_MAX, the rest by title. */
function answersPart(c: Continuation, f: RunFiles): string[] {
  const open =
    c.open === 0
      ? null
      : c.open === 1
        ? 'One question is still open: keep going on your best guess for it.'
        : `${c.open} questions are still open: keep going on your best guesses for those.`;
  if (c.answered.length === 0)
    return [[`None of the questions in ${f.questions} has an answer yet.`, open].filter(Boolean).join(' ')];
  const items: string[] = [];
  let size = 0;
  for (const [i, q] of c.answered.entries()) {
    const answer =
      q.answer.length > ANSWER_MAX
        ? `${q.answer.slice(0, ANSWER_MAX)}… (the whole answer is in ${f.questions})`
        : q.answer;
    const item = `${i + 1}. ${q.title}\n   Answer: ${answer}`;
    size += item.length;
    if (size > ANSWERS_MAX) {
      const rest = c.answered.slice(i).map((r) => `- ${r.title}`);
      items.push(`The answers to these are in ${f.questions}:\n${rest.join('\n')}`);
      break;
    }
    items.push(item);
  }
  const head = `The person answered ${plural(c.answered.length, 'question')} in ${f.questions}:`;
  return [head, ...items, ...(open ? [open] : [])];
}

/** The notes in the prompt, unless they are so long that the briefing, which holds them whole, must do. */
function notesPart(c: Continuation, f: RunFiles): string[] {
  if (c.notes === null) return [];
  const bytes = Buffer.byteLength(c.notes);
  if (bytes > TASK_IN_PROMPT_MAX)
    return [
      `The person left notes for this night (${Math.round(bytes / 1024)} KB): read them in ${f.claudeMd}.`,
    ];
  return ["The person's notes for this night:", c.notes.trim()];
}

function carryOn(c: Continuation): string {
  const answers =
    c.answered.length === 0
      ? ''
      : 'Take the answers into account: where one differs from the best guess you went on, ' +
        'revisit the work that rested on that guess. ';
  const open = c.report ? 'what the report left open' : 'the open threads in the findings';
  const notes = c.notes === null ? '' : ' and with the notes';
  return `${answers}Carry on with ${open}${notes}, and keep writing findings as you go.`;
}

/** Paragraphs, a blank line between them, a newline at the end. */
const paragraphs = (parts: (string | null | undefined)[]) => parts.filter(Boolean).join('\n\n') + '\n';

/**
 * The follow-up's first prompt in the earlier conversation, resumed into its own: the briefing,
 * the end time and the directory are new; what was carried over; the answers; the notes.
 * `repo`: the system prompt (recorded by the earlier conversation) is replaced by the new briefing.
 */
export function forkPrompt(c: Continuation, f: RunFiles, where: string, repo: boolean): string {
  const briefing = repo
    ? `Your briefing is new: it is in your system prompt again, and at ${f.claudeMd}; re-read it now`
    : `Your briefing is new: re-read ${f.claudeMd} now`;
  const report = c.report ? ` and its report, ${f.previousReport}` : '';
  const since =
    `This is a new overnight run, continuing the run ${c.from} in the same conversation: everything ` +
    `above happened in that run, which has ended (${c.ended || 'finished'}). Since then:\n\n` +
    `- ${briefing}. It has the new end time and rules, and replaces what you were told before.\n` +
    `- You work in ${where}. The earlier run's files were copied here: ${f.findings}, ${f.questions} ` +
    `(with the person's answers)${report}. Work on these; never write in ${c.fromWorkspace} again.`;
  return paragraphs([since, ...answersPart(c, f), ...notesPart(c, f), carryOn(c)]);
}

/** The follow-up's first prompt in a fresh conversation, when the earlier one could not be resumed. */
export function followUpHandover(c: Continuation, task: string, f: RunFiles): string {
  const report = c.report ? `${f.previousReport} (its report), ` : '';
  const intro =
    `You are running unattended under overnight, in a new run that continues the earlier run ${c.from} ` +
    `(it ended: ${c.ended || 'finished'}), in a fresh session: its conversation could not be resumed` +
    `${c.why ? ` (${c.why})` : ''}. Read ${f.claudeMd} (the task, the end time and the rules), then ` +
    `${report}${f.questions} and every file in ${f.findings}: copied from the earlier run, they hold ` +
    'the work so far. Do not redo what is there; carry on from it.';
  const last = c.lastWords ? `The earlier run's last words were:\n\n${c.lastWords}` : null;
  return paragraphs([
    intro,
    last,
    ...answersPart(c, f),
    ...notesPart(c, f),
    carryOn(c),
    taskPart(task, f.claudeMd).trim(),
  ]);
}

/** What a later fresh session of a follow-up is told besides the usual hand-over. */
export function continuationNote(c: Continuation, f: RunFiles): string {
  const report = c.report ? ` Its report is ${f.previousReport}.` : '';
  return (
    '\n' +
    paragraphs([
      `This run continues the earlier run ${c.from}.${report}`,
      ...answersPart(c, f),
      ...notesPart(c, f),
    ])
  );
}
