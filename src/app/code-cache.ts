// What a command tells bin/load.js of its run: V8's code cache of a pass is made from a run that
// is what most of them are (see load.js), not from whichever ran first after a build.

/** The symbol bin/load.js reads when the process exits. */
const TYPICAL = Symbol.for('overnight.typicalRun');

/** This run is a typical one of its command: its compiled code is the one to cache. */
export function markTypicalRun(): void {
  (globalThis as Record<symbol, unknown>)[TYPICAL] = true;
}
