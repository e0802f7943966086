// A status row as `status --json` prints it. The row keeps its count of open questions as
// `questions` (final.json and status's row cache have it so), but printed it is `openQuestions`:
// `status <run> --json` adds `questions`, the list itself, and a key has one shape wherever it is.

/** The row's keys in their order, the count of open questions named for what it is. */
export function printedRow(row: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[k === 'questions' ? 'openQuestions' : k] = v;
  return out;
}

/** A printed row's text (jsonListItem's, a top-level key indented by four) as the row's own keys. */
export function rowKeysOfText(text: string): string {
  return text.replace('\n    "openQuestions": ', '\n    "questions": ');
}
