import { waitLock } from '../adapters/lock.js';
import { usableRunsRoot } from '../adapters/runs-root.js';
import type { Io } from '../app/io.js';
import { resolveRun } from '../app/resolve.js';
import { settingsWithWarnings } from '../app/settings.js';
import { UsageError } from '../core/errors.js';
import { rootPaths } from '../core/run/paths.js';
import { safeLine } from '../core/text.js';
import { planRemoval, removeRun, type Removal } from '../runs/archive.js';

// `overnight rm <run>`: delete a finished run (archived or not) and its worktree; its branch stays.

export interface RmOptions {
  yes?: boolean;
}

export async function rmCommand(name: string, opts: RmOptions, io: Io): Promise<number> {
  const root = (await settingsWithWarnings(io)).runsDir;
  usableRunsRoot(root, 'write');
  const run = await resolveRun(name, root, io, 'any', true);
  const plan = await planRemoval(run.root, run.id, root);
  if (!opts.yes) {
    if (!io.ask)
      throw new UsageError(
        `rm deletes ${plan.id} and its files${plan.worktree ? ' and worktree' : ''}; ` +
          'add --yes to confirm (there is no terminal to ask on)',
      );
    for (const line of what(plan)) io.stderr(line);
    const answer = await io.ask('Delete? [y/N] ');
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.stdout(`${run.id}: kept`);
      return 1;
    }
  }
  const release = await waitLock(rootPaths(root).lock, 60_000, () => {});
  try {
    for (const note of await removeRun(run.root, plan, io.now())) io.stderr(`note: ${note}`);
  } finally {
    await release();
  }
  const branch = plan.repo ? `; the branch ${plan.repo.branch} stays in ${plan.repo.path}` : '';
  io.stdout(safeLine(`${run.id}: deleted${branch}`));
  return 0;
}

/** Everything that goes, said plainly: the answer must be an informed one. */
function what(plan: Removal): string[] {
  const lines = [
    `This deletes the run ${plan.id}:`,
    `  ${plan.workspace} (its report, findings, questions and logs)`,
  ];
  if (plan.repo && plan.worktree) {
    const lost = plan.uncommitted > 0 ? `, and ${plan.uncommitted} uncommitted changes in it` : '';
    lines.push(`  the worktree ${plan.repo.worktree}${lost}`);
  }
  if (plan.leftAlone) lines.push(`The worktree stays: ${plan.leftAlone}.`);
  if (plan.repo) lines.push(`The branch ${plan.repo.branch} stays in ${plan.repo.path}.`);
  return lines;
}
