import type { RunPaths } from '../core/run/paths.js';
import { parseJunit } from '../core/verify/parse-junit.js';
import { parseTestOutput } from '../core/verify/parse.js';
import { CHECK_LOG_MAX, checkFile } from '../core/verify/records.js';
import type { CheckStep, OutcomeCounts, TestCounts } from '../core/verify/types.js';
import { readHead, writeFileAtomic } from './files.js';
import { readTail } from './store.js';

// A finished check step's counts, parsed once from its output (its whole log, up to 8 MB, or the
// JUnit file it wrote) and kept beside it: `check-<step>.counts` (small: read by every pass) and
// `check-<step>.tests` (every test by name: read only when the night is accounted for). Both say
// which exit record they belong to; a step run again is parsed again. Derived: safe to delete.

const JUNIT_BYTES = 4 * 1024 * 1024;
/** A counts file holds no names list longer than this; the tests file no more than MAX_TESTS names. */
const COUNTS_BYTES = 256 * 1024;
const TESTS_BYTES = 16 * 1024 * 1024;

interface Parsed {
  counts: TestCounts | null;
}

function parse(paths: RunPaths, step: CheckStep): TestCounts | null {
  const file = (ext: 'log' | 'junit') => checkFile(paths.state, step, ext);
  // The JUnit file the command wrote (verify_junit), when there is one, says more than its output.
  const junit = readHead(file('junit'), JUNIT_BYTES);
  const fromJunit = junit ? parseJunit(junit) : null;
  if (fromJunit) return fromJunit;
  const log = readTail(file('log'), CHECK_LOG_MAX);
  // The wrapper keeps the log's last 8 MB: a log that size may have lost its start.
  return parseTestOutput(log, Buffer.byteLength(log) < CHECK_LOG_MAX);
}

const cacheOf = (paths: RunPaths, step: CheckStep, what: 'counts' | 'tests') =>
  checkFile(paths.state, step, what);

/** The step's counts (without its tests by name), for the exit record `exit` (its text). */
export function stepCounts(paths: RunPaths, step: CheckStep, exit: string): TestCounts | null {
  const cached = readCache(cacheOf(paths, step, 'counts'), exit, COUNTS_BYTES) as Parsed | null;
  if (cached && 'counts' in cached) return cached.counts && { ...cached.counts, tests: null };
  const counts = parse(paths, step);
  try {
    writeFileAtomic(
      cacheOf(paths, step, 'tests'),
      JSON.stringify({ exit, tests: counts?.tests ?? null }) + '\n',
    );
    writeFileAtomic(
      cacheOf(paths, step, 'counts'),
      JSON.stringify({ exit, counts: counts && { ...counts, tests: null } }) + '\n',
    );
  } catch {
    // read-only records (status as another process): parsed again next time
  }
  return counts && { ...counts, tests: null };
}

/** The step's tests by name, when its output named them all; null otherwise. */
export function stepTests(
  paths: RunPaths,
  step: CheckStep,
  exit: string,
): Record<string, OutcomeCounts> | null {
  const cached = readCache(cacheOf(paths, step, 'tests'), exit, TESTS_BYTES) as { tests?: unknown } | null;
  const tests = cached ? cached.tests : parse(paths, step)?.tests;
  return isTests(tests) ? tests : null;
}

/** A cache file belonging to this exit record, parsed; null otherwise. */
function readCache(path: string, exit: string, max: number): unknown {
  try {
    const v = JSON.parse(readHead(path, max) ?? 'null') as { exit?: unknown } | null;
    return v && v.exit === exit ? v : null;
  } catch {
    return null;
  }
}

/** Read back, every entry a name with three small counts. */
function isTests(v: unknown): v is Record<string, OutcomeCounts> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  for (const c of Object.values(v))
    if (!Array.isArray(c) || c.length !== 3 || !c.every((n) => Number.isInteger(n) && n >= 0 && n < 1e6))
      return false;
  return true;
}
