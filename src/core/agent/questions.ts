// questions.md read back: one `## ` section per question, in the format the briefing asks for
// (QUESTIONS_HEADER), tolerant of what agents really write (bold markers, other bullets, missing
// fields). Pure: text in, questions out. Headings and answers inside fenced code blocks are text.

/** The part of questions.md read: its questions are near the top, a larger file is cut here. */
export const QUESTIONS_MAX_BYTES = 1024 * 1024;

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
// Scanned by hand, one step per character: a regex of adjacent `\s*` backtracks on a line of spaces.
const FIELD_NAMES: readonly Field[] = ['best guess', 'why it matters', 'priority', 'answer'];

/** Lines longer than this are prose, never a field (and are not scanned for one). */
const FIELD_LINE_MAX = 64 * 1024;

function skip(line: string, at: number, chars: string): number {
  let i = at;
  while (i < line.length && chars.includes(line[i] as string)) i++;
  return i;
}

const SPACE = ' \t\r\f\v';

/** The field a line starts, and its value; null for any other line. */
export function fieldOf(line: string): { name: Field; value: string } | null {
  if (line.length > FIELD_LINE_MAX) return null;
  let i = skip(line, 0, SPACE);
  if (line[i] === '>') i = skip(line, i + 1, SPACE);
  if (line[i] === '-' || line[i] === '*' || line[i] === '+') i = skip(line, i + 1, SPACE);
  i = skip(line, skip(line, i, '*'), SPACE);
  const rest = line.slice(i, i + 16).toLowerCase();
  const name = FIELD_NAMES.find((f) => rest.startsWith(f));
  if (!name) return null;
  i = skip(line, skip(line, skip(line, i + name.length, SPACE), '*'), SPACE);
  if (line[i] !== ':') return null;
  i = skip(line, skip(line, skip(line, i + 1, SPACE), '*'), SPACE);
  return { name, value: line.slice(i).trim() };
}

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

/** A title is a line on the dashboard; an answer a few paragraphs. Longer ones are cut. */
const TITLE_MAX = 500;
const FIELD_MAX = 16 * 1024;

const clean = (text: string) => text.replace(/\*\*|__/g, '').trim();

/** The `## ` heading's text: bold markers and closing hashes gone. */
function titleOf(line: string): string {
  const text = line.slice(3, 3 + TITLE_MAX * 4).trimEnd();
  let end = text.length;
  while (end > 0 && text[end - 1] === '#') end--;
  // A closing run of hashes counts only after a space (`## C#` keeps its hash).
  const closed = end < text.length && (end === 0 || /\s/.test(text[end - 1] as string));
  const title = clean(closed ? text.slice(0, end) : text);
  return (title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX - 1)}…` : title) || '(untitled question)';
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
    const field = fieldOf(line);
    if (field) {
      const name = field.name;
      // The first of a field counts: a later `Answer:` quoted in prose does not replace it.
      if (current.fields[name] === undefined) current.fields[name] = field.value.slice(0, FIELD_MAX);
      // Only prose fields run on over the next lines; a priority is one word.
      current.open = name === 'priority' ? null : name;
    } else if (line.trim() === '' || /^\s{0,3}#/.test(line)) {
      current.open = null;
    } else if (current.open) {
      const before = current.fields[current.open] ?? '';
      // Bounded: a megabyte of prose under `Answer:` is kept as its first FIELD_MAX characters.
      if (before.length < FIELD_MAX)
        current.fields[current.open] = `${before} ${line.trim()}`.trim().slice(0, FIELD_MAX);
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
