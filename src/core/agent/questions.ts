// questions.md read back: one `## ` section per question, in the format the briefing asks for
// (QUESTIONS_HEADER), tolerant of what agents really write (bold markers, other bullets, missing
// fields). Pure: text in, questions out. Headings and answers inside fenced code blocks are text.

export const PRIORITIES = ['high', 'medium', 'low', 'unknown'] as const;
export type Priority = (typeof PRIORITIES)[number];

export interface Question {
  title: string;
  priority: Priority;
  answered: boolean;
  /** The person's answer, kept for a follow-up night. */
  answer?: string;
  bestGuess?: string;
  whyItMatters?: string;
}

type Field = 'best guess' | 'why it matters' | 'priority' | 'answer';

// `- Best guess: x`, `**Priority:** High`, `- **Answer**: yes`, `* answer: no`, `> Answer: …`.
const FIELD =
  /^\s*(?:>\s*)?(?:[-*+]\s*)?\**\s*(best guess|why it matters|priority|answer)\s*\**\s*:\s*\**\s*(.*)$/i;

// Words agents use for a priority, first one found wins: `High`, `P1`, `critical - blocks X`.
const PRIORITY_WORDS: [RegExp, Priority][] = [
  [/\b(?:high|critical|urgent|blocking|blocker|p0|p1)\b/i, 'high'],
  [/\b(?:medium|med|moderate|normal|p2)\b/i, 'medium'],
  [/\b(?:low|minor|p3|p4)\b/i, 'low'],
];

/** `high` … `low` from what follows `Priority:`; anything else is unknown. */
export function priorityOf(text: string): Priority {
  let best: { at: number; priority: Priority } | null = null;
  for (const [pattern, priority] of PRIORITY_WORDS) {
    const m = pattern.exec(text);
    if (m && (!best || m.index < best.at)) best = { at: m.index, priority };
  }
  return best?.priority ?? 'unknown';
}

// An answer line left for the person to fill in is no answer: `Answer:`, `Answer: <…>`, `TBD`.
const PLACEHOLDER = /^(?:|<.*>|[_*]?\(.*\)[_*]?|tbd|todo|pending|none yet|n\/a|\.\.\.|…|-|_+)$/i;

const clean = (text: string) => text.replace(/\*\*|__/g, '').trim();

/** The `## ` heading's text: bold markers and closing hashes gone. */
function titleOf(line: string): string {
  return clean(line.slice(3).replace(/\s#+\s*$/, '')) || '(untitled question)';
}

interface Draft {
  title: string;
  fields: Partial<Record<Field, string>>;
  /** The field whose value later lines (up to a blank line) continue. */
  open: Field | null;
}

function finish(d: Draft): Question {
  const answer = d.fields.answer === undefined ? undefined : clean(d.fields.answer);
  const answered = answer !== undefined && !PLACEHOLDER.test(answer);
  const q: Question = {
    title: d.title,
    priority: priorityOf(d.fields.priority ?? ''),
    answered,
  };
  if (answered) q.answer = answer;
  if (d.fields['best guess']) q.bestGuess = clean(d.fields['best guess']);
  if (d.fields['why it matters']) q.whyItMatters = clean(d.fields['why it matters']);
  return q;
}

/** Every question of questions.md, in file order, answered or not. */
export function parseQuestions(markdown: string): Question[] {
  const out: Question[] = [];
  let current: Draft | null = null;
  // A fence closes only with the same character, at least as long (CommonMark).
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      if (current) current.open = null;
      continue;
    }
    if (line.startsWith('## ')) {
      if (current) out.push(finish(current));
      // The header's template section is an example, not a question.
      current = /^## <the question>/.test(line) ? null : { title: titleOf(line), fields: {}, open: null };
      continue;
    }
    if (!current) continue;
    const field = FIELD.exec(line);
    if (field) {
      const name = (field[1] as string).toLowerCase() as Field;
      // The first of a field counts: a later `Answer:` quoted in prose does not replace it.
      if (current.fields[name] === undefined) current.fields[name] = (field[2] as string).trim();
      // Only prose fields run on over the next lines; a priority is one word.
      current.open = name === 'priority' ? null : name;
    } else if (line.trim() === '' || /^\s{0,3}#/.test(line)) {
      current.open = null;
    } else if (current.open) {
      const before = current.fields[current.open] ?? '';
      current.fields[current.open] = `${before} ${line.trim()}`.trim();
    }
  }
  if (current) out.push(finish(current));
  return out;
}

const RANK: Record<Priority, number> = { high: 0, medium: 1, low: 2, unknown: 3 };

/** Open questions first, highest priority first (file order among equals); answered ones last. */
export function rankQuestions<Q extends Pick<Question, 'priority' | 'answered'>>(
  questions: readonly Q[],
): Q[] {
  const key = (q: Q) => (q.answered ? 4 : RANK[q.priority]);
  return questions
    .map((q, i) => ({ q, i }))
    .sort((a, b) => key(a.q) - key(b.q) || a.i - b.i)
    .map((x) => x.q);
}

/** Questions without an answer. */
export function countOpen(questions: readonly Pick<Question, 'answered'>[]): number {
  return questions.filter((q) => !q.answered).length;
}
