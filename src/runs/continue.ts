import { join } from 'node:path';

import { loadSettings } from '../adapters/config-file.js';
import { appendLine, readText, writeFileAtomic } from '../adapters/files.js';
import { waitLock } from '../adapters/lock.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import { readContinuedBy, readSentinel, readSpec, runExists } from '../adapters/store.js';
import { overnightSocket } from '../adapters/tmux-socket.js';
import { configDirOf } from '../adapters/transcript.js';
import { hint, type Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { QUESTIONS_HEADER, renderClaudeMd } from '../core/agent/briefing.js';
import { continuedSection } from '../core/agent/continuation.js';
import { runFiles } from '../core/agent/run-files.js';
import { describeProblem, limitsOf } from '../core/config/settings.js';
import { OperationalError, RunFileError, UsageError } from '../core/errors.js';
import { serializeContinuation, type Continuation, type ContinuedBy } from '../core/run/continuation.js';
import { runId, slugify, uniqueRunId } from '../core/run/naming.js';
import { rootPaths, runPaths, type RunPaths } from '../core/run/paths.js';
import type { RunSpec } from '../core/run/types.js';
import { finalizeFinished } from '../reconcile/finalize.js';
import { passHooks } from '../reconcile/hooks.js';
import { copyLeft, resumable, whatWasLeft } from './carry.js';
import { backendReachable } from './cluster.js';
import { confinementAgain, proveConfinement } from './confinement.js';
import { createRun, idTaken } from './create.js';
import { checkHandover, handoverWork } from './hand-over.js';
import { agentTools, cliPath, endTime } from './launch.js';

// `continue`: the night after a finished run, a run of its own that starts from what the earlier
// one left (copies of its findings, its questions with the person's answers, its report) and, when
// it can, from its conversation. Nothing of the earlier run is changed but a link to the new one.

export interface ContinueRequest {
  /** The finished run, as the person names it. */
  run: string;
  duration?: string;
  until?: string;
  long?: boolean;
  name?: string;
  /** The person's notes for the new night (`--task-file`), verbatim. */
  notes?: string;
}

export interface Continued {
  spec: RunSpec;
  root: string;
  from: { id: string; workspace: string };
  continuation: Continuation;
  /** Files carried over in findings/. */
  findings: number;
  /** Files of the earlier run not carried: links (never followed) and other files that are not regular. */
  skipped: string[];
}

export async function continueRun(req: ContinueRequest, io: Io): Promise<Continued> {
  if (req.duration !== undefined && req.until !== undefined)
    throw new UsageError('give --duration or --until, not both');
  const { settings, problems } = await loadSettings({ duration: req.duration }, io.env);
  if (problems.length > 0) throw new UsageError(problems.map(describeProblem).join('; '));
  const root = settings.runsDir;
  usableRunsRoot(root, 'write');
  const now = io.now();
  const endsAt = endTime(req, settings, now);
  const { claude, tmux, backend } = agentTools(settings, io.env);
  await backendReachable(backend, io.env, io.cmd);
  // Under the pass lock: no pass finalizes the earlier run, and no other continue links it, meanwhile.
  const release = await waitLock(rootPaths(root).lock, 20_000, () => {});
  try {
    const from = await resolveRun(req.run, root, io, 'any');
    const old = runPaths(from.root, from.id);
    if (!readSentinel(old))
      throw new UsageError(
        `${from.id} is still going; a run is continued once it has ended: ` +
          `\`${hint(io, `finish ${from.id}`)}\` ends the night now with its report, ` +
          `\`${hint(io, `stop ${from.id}`)}\` without one`,
      );
    const earlier = await specOf(old, from.id);
    const link = readContinuedBy(old);
    if (link && runExists(root, link.id))
      throw new UsageError(
        `${from.id} was already continued by ${link.id}; a run is continued once, so that its nights ` +
          `stay one line: continue that one instead (${hint(io, `continue ${link.id}`)})`,
      );
    // Its agents verified gone and its summary written, as any finished run's (archived ones are).
    if (!from.archived) await finalizeFinished(from.id, old, now, await passHooks(settings, io));
    const left = whatWasLeft(old, earlier);
    const limits = limitsOf(settings);
    const conversation = resumable(old, earlier, configDirOf(io.env), limits.maxTranscript);
    const handover = earlier.repo ? await checkHandover(from.id, earlier.repo) : null;

    const confined = confinementAgain(earlier, io.env);
    const id = uniqueRunId(runId(now, slugify(req.name ?? earlier.name ?? earlier.task)), idTaken(root));
    const spec: RunSpec = {
      ...earlier,
      id,
      name: req.name ?? earlier.name,
      repo: earlier.repo &&
        handover && {
          ...earlier.repo,
          base: handover.head,
          worktree: join(rootPaths(root).worktrees, id),
        },
      startedAt: now,
      endsAt,
      sessionId: crypto.randomUUID(),
      limits,
      continues: from.id,
      backend,
      paths: {
        claude,
        tmux,
        node: process.execPath,
        cli: cliPath(),
        tmuxSocket: overnightSocket(io.env),
        ...(confined.checkWith ? { bwrap: confined.checkWith } : {}),
      },
    };
    const c: Continuation = {
      from: from.id,
      fromWorkspace: old.workspace,
      ended: readSentinel(old)?.reason ?? '',
      fork: 'fork' in conversation ? conversation.fork : null,
      why: 'why' in conversation ? conversation.why : null,
      inheritedCostUsd: left.costUsd,
      answered: left.answered,
      open: left.open,
      notes: req.notes ?? null,
      report: left.report,
      lastWords: left.lastWords,
    };
    await proveConfinement(root, confined, io.env);
    const paths = runPaths(root, id);
    const runDir = spec.repo ? paths.workspace : null;
    const briefingRepo = spec.repo && { ...spec.repo, runDir: paths.workspace, continues: from.id };
    const continued = continuedSection(c, runFiles(runDir), spec.repo !== null);
    await createRun(root, spec, io, settings, {
      claudeMd: renderClaudeMd({ ...spec, repo: briefingRepo, continued }),
      questions: left.questions ?? QUESTIONS_HEADER,
      fill(at) {
        copyLeft(old, left, { findings: at(paths.findings), previousReport: at(paths.previousReport) });
        writeFileAtomic(at(paths.continuation), serializeContinuation(c));
        const how = c.fork ? 'resumed' : 'handed over';
        const reason = `continues ${from.id} (its conversation ${how}${c.why ? `: ${c.why}` : ''})`;
        appendLine(
          at(paths.events),
          JSON.stringify({
            at: now.toISOString(),
            action: 'continue',
            from: from.id,
            conversation: how,
            reason,
          }),
        );
      },
      ...(spec.repo && handover ? { worktree: handoverWork(handover, spec.repo) } : {}),
      // The link first, the new run in place after: a link to a run that never came to be is
      // ignored (the dashboard shows only a follow-up that exists), a follow-up is never unlinked.
      beforePlace: () =>
        linkFollowUp(old, { id, at: now.toISOString(), ...(handover && { head: handover.head }) }),
    });
    return {
      spec,
      root,
      from: { id: from.id, workspace: old.workspace },
      continuation: c,
      findings: left.findings,
      skipped: left.skipped,
    };
  } finally {
    await release();
  }
}

async function specOf(paths: RunPaths, id: string): Promise<RunSpec> {
  try {
    return await readSpec(paths);
  } catch (err) {
    if (err instanceof RunFileError) throw new OperationalError(`cannot continue ${id}: its ${err.message}`);
    throw err;
  }
}

/**
 * The earlier run's side of the link, and its cached status summary refreshed to say it (both
 * written atomically, under the pass lock). Nothing else of that run is touched.
 */
function linkFollowUp(old: RunPaths, link: ContinuedBy): void {
  writeFileAtomic(old.continuedBy, JSON.stringify(link) + '\n');
  let summary: Record<string, unknown> | null = null;
  try {
    summary = JSON.parse(readText(old.final) ?? 'null') as Record<string, unknown> | null;
  } catch {
    // torn: the next summary of the run reads the link itself
  }
  // Anything but an object is no summary to extend (status shows a broken one as such).
  if (typeof summary !== 'object' || summary === null || Array.isArray(summary)) return;
  const tip = link.head && summary.repo ? { handedOver: link.head } : {};
  writeFileAtomic(old.final, JSON.stringify({ ...summary, continuedBy: link.id, ...tip }) + '\n');
}
