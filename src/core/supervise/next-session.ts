import type { SessionLog } from '../agent/stream.js';
import type { RunSpec, SessionMode } from '../run/types.js';

// What the next session carries over from the ones before: the model, the last words of a
// conversation left behind, and whether the last one ran the conversation it was given.

/** Names that Claude Code resolves to whatever model is current. */
const ALIASES = new Set(['opus', 'sonnet', 'haiku', 'opusplan', 'default', 'best']);

/** Whether a run's model may still be pinned: an alias or none (a full model name never moves). */
export function mayPin(model: string | null): boolean {
  return !model || ALIASES.has(model);
}

/**
 * The model every later session should use: the one the first session actually ran (its init
 * event), so a run never changes model mid-night because an alias moved. Null when nothing is to
 * be pinned: a full model name was given, or no session has said which model it ran.
 */
export function modelToPin(model: string | null, logs: readonly SessionLog[]): string | null {
  if (!mayPin(model)) return null;
  const used = logs.find((s) => s.model && s.model !== '<synthetic>')?.model;
  return used && used !== model ? used : null;
}

/** The last words worth handing to a fresh conversation: a successful result's text, never an error. */
export function lastWords(logs: readonly SessionLog[]): string | null {
  return logs.findLast((s) => s.result?.text && !s.result.isError)?.result?.text ?? null;
}

/**
 * A resumed session that ran another conversation than the run's (the CLI silently started anew):
 * what to record, or null when all is as it should be. The next start resumes the run's own again.
 */
export function wrongConversation(
  spec: RunSpec,
  session: { n: number; mode: SessionMode },
  conversation: string | null,
): { session: number; conversation: string; expected: string } | null {
  if (session.mode === 'initial' || !conversation || conversation === spec.sessionId) return null;
  return { session: session.n, conversation, expected: spec.sessionId };
}
