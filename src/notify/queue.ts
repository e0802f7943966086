import { readLinesFrom, readOffset, writeOffset } from '../adapters/events-log.js';
import { readText } from '../adapters/files.js';
import { regularInside } from '../adapters/inside.js';
import { createDelivery, readRunVars } from '../adapters/outbox.js';
import { readSpec } from '../adapters/store.js';
import type { Io } from '../app/io.js';
import type { Settings } from '../core/config/settings.js';
import { errnoWords } from '../core/io-error.js';
import { newDelivery, type Policy } from '../core/notify/delivery.js';
import { eventOf, kindsOf, type RunFacts } from '../core/notify/events.js';
import { DESKTOP_VARS } from '../core/notify/format.js';
import { parseLaunchEnv } from '../core/notify/launch-env.js';
import { varsOf, type NotifyTarget } from '../core/notify/targets.js';
import type { RunPaths } from '../core/run/paths.js';

// The outbox is derived from each run's events log, not hooked into its writers: what was added
// since the last scan is read, each transition that is news becomes one delivery per target that
// wants it, then the scan's end is recorded. A scan that dies before recording its end is simply
// done again: a delivery that exists (in any state) is never made twice. Scans run under the pass
// lock (a pass, or stop), so they never race each other.

/** A pass reads at most this much of a log at once; the rest waits for the next pass. */
const MAX_SCAN_BYTES = 1024 * 1024;

interface Notifier {
  /**
   * Queues the run's new transitions; false when that failed (a full disk), and then a finished
   * run must not be forgotten yet: the next pass tries again. Never throws.
   */
  queue(id: string, paths: RunPaths): Promise<boolean>;
}

/** How each delivery is tried: timeout, tries and backoff from the settings. */
export function policyOf(settings: Settings): Policy {
  return { timeout: settings.notifyTimeout, tries: settings.notifyTries, backoff: settings.notifyBackoff };
}

/** The pass's queueing of each run's transitions (reconcile/hooks.ts, when a target is configured). */
export function makeNotifier(settings: Settings, io: Io): Notifier {
  const policy = policyOf(settings);
  const warned = new Set<string>();
  return {
    async queue(id, paths) {
      try {
        await queueRun(settings.runsDir, id, paths, settings.notify, policy, io.now());
        return true;
      } catch (err) {
        if (!warned.has(id))
          io.stderr(
            `warning: ${id}: its notifications could not be queued (${inWords(err)}); ` +
              'the next pass tries again',
          );
        warned.add(id);
        return false;
      }
    },
  };
}

async function queueRun(
  root: string,
  id: string,
  paths: RunPaths,
  targets: NotifyTarget[],
  policy: Policy,
  now: Date,
): Promise<void> {
  const from = readOffset(paths.notifyOffset);
  const { lines, end } = readLinesFrom(paths.events, from, MAX_SCAN_BYTES);
  if (end === from) return;
  let facts: RunFacts | undefined;
  let launchEnv: Record<string, string> | undefined;
  for (const line of lines) {
    let raw: unknown;
    try {
      raw = JSON.parse(line.text);
    } catch {
      continue; // a line torn by a crash
    }
    if (typeof raw !== 'object' || raw === null) continue;
    // Most lines are not news; the run's facts (its spec, its report) are read for those that are.
    if (!kindsOf(raw as Record<string, unknown>, false)) continue;
    facts ??= await runFacts(id, paths);
    const event = eventOf(raw as Record<string, unknown>, line.offset, facts);
    if (!event) continue;
    for (const target of targets) {
      if (!target.on.some((k) => event.kinds.includes(k))) continue;
      // Read only when a target names a variable, and only what it names is kept.
      const names = [...varsOf(target), ...(target.kind === 'desktop' ? DESKTOP_VARS : [])];
      const vars: Record<string, string> = {};
      // The values withheld from the agent (saved at launch) win over the agent's environment.
      if (names.length > 0)
        launchEnv ??= { ...parseLaunchEnv(readText(paths.agentEnv) ?? ''), ...readRunVars(root, id) };
      for (const n of names) if (launchEnv?.[n] !== undefined) vars[n] = launchEnv[n];
      createDelivery(root, newDelivery(event, line.offset, target, vars, policy, now));
    }
  }
  writeOffset(paths.notifyOffset, end);
}

/** A file error in words, naming the file, never the errno code. */
function inWords(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  // A file in the way of a directory says more than the code's own words.
  const inTheWay = e.code === 'EEXIST' || e.code === 'ENOTDIR';
  const said = inTheWay ? 'a file is in the way of a directory' : e.code ? errnoWords(e.code) : undefined;
  if (!said) return e.message.replace(/^[A-Z]+: /, '');
  return e.path ? `${said}: ${e.path}` : said;
}

async function runFacts(id: string, paths: RunPaths): Promise<RunFacts> {
  let task: string | null = null;
  try {
    task = (await readSpec(paths)).task;
  } catch {
    // a run whose run.yaml is unusable still tells its news
  }
  return {
    id,
    workspace: paths.workspace,
    report: regularInside(paths.workspace, paths.report) ? paths.report : null,
    task,
  };
}
