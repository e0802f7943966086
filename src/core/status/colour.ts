import type { RunState } from '../run/types.js';

// Colour by state for a terminal that wants it (the caller decides: NO_COLOR, --no-color, a pipe).
// The text is made safe before it is painted: these are the only control sequences printed.

const CODES = {
  bold: '1',
  dim: '2',
  red: '31',
  green: '32',
  yellow: '33',
  cyan: '36',
} as const;

export type Paint = keyof typeof CODES;

export type Painter = (text: string, ...how: Paint[]) => string;

export const noPaint: Painter = (text) => text;

export const paint: Painter = (text, ...how) =>
  how.length === 0 || text === '' ? text : `\x1b[${how.map((h) => CODES[h]).join(';')}m${text}\x1b[0m`;

export const STATE_PAINT: Record<RunState, Paint[]> = {
  running: ['green'],
  synthesizing: ['cyan'],
  verifying: ['cyan'],
  waiting: ['yellow'],
  paused: ['dim'],
  done: [],
  failed: ['red', 'bold'],
};

/** Colour is for a person at a terminal who has not said no (https://no-color.org). */
export function wantsColour(isTty: boolean, env: NodeJS.ProcessEnv, noColour: boolean): boolean {
  if (noColour || !isTty) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}
