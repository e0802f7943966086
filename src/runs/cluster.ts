import { controllerProblem, slurmConf } from '../adapters/slurm.js';
import { OperationalError } from '../core/errors.js';
import type { BackendName } from '../core/run/backend.js';
import { clusterFix, noClusterHere } from '../core/slurm/cluster.js';

/**
 * A cluster to submit to, asked before a run is made (launch, continue): Slurm's commands
 * installed without a cluster (no slurm.conf) would make a run that can never start.
 */
export async function backendReachable(
  backend: BackendName,
  env: NodeJS.ProcessEnv,
  cmd = 'overnight',
): Promise<void> {
  if (backend !== 'slurm') return;
  const problem = await controllerProblem({ env });
  if (!problem) return;
  const none = noClusterHere(slurmConf(env));
  const fix = none
    ? clusterFix('launch with --backend tmux or detached')
    : `check that the cluster's controller runs and that munged runs here (\`${cmd} doctor\` checks ` +
      'both), or launch with --backend tmux or detached';
  throw new OperationalError(
    `the slurm backend cannot reach a Slurm controller from here (${problem})` +
      `${none ? `: ${none}` : ''}; ${fix}. Nothing was created`,
  );
}
