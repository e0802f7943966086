// Whether this machine is configured for a Slurm cluster: said by doctor and by launch when
// Slurm's commands are installed but cannot reach a controller. Pure: the adapter looks.

/** slurm.conf as Slurm's commands look for it: SLURM_CONF, else /etc/slurm/slurm.conf. */
export interface SlurmConf {
  path: string;
  exists: boolean;
  /** The path came from SLURM_CONF. */
  fromEnv: boolean;
}

export const DEFAULT_SLURM_CONF = '/etc/slurm/slurm.conf';

/** What to do about it: the commands are there, a cluster is not. `instead`: the way to another backend. */
export function clusterFix(instead: string): string {
  return (
    "set SLURM_CONF to your cluster's slurm.conf, or run overnight on one of the cluster's machines " +
    `(a login node); without a cluster, ${instead}`
  );
}

/**
 * Why no cluster is configured here, when slurm.conf is missing; null when it is there. (Slurm's
 * commands can find a controller without one, through DNS: said only when they did not.)
 */
export function noClusterHere(conf: SlurmConf): string | null {
  if (conf.exists) return null;
  return conf.fromEnv
    ? `SLURM_CONF names ${conf.path}, which does not exist`
    : `no Slurm cluster is configured here (no ${conf.path}, and SLURM_CONF is unset)`;
}
