// The `slurm:` settings of config.yaml: what every session's `sbatch` gets besides what overnight
// sets itself. Validated alone, key by key: a bad value is reported and left out. Pure.
//
//   slurm:
//     partition: long            # --partition
//     account: lab42             # --account
//     mem: 8G                    # --mem (a number is megabytes)
//     cpus: 2                    # --cpus-per-task
//     extra: [--qos=low, "--constraint=intel"]

export interface SlurmSettings {
  partition: string | null;
  account: string | null;
  mem: string | null;
  cpus: number | null;
  /** More sbatch options, each one argv word starting with `--`. */
  extra: string[];
}

export const DEFAULT_SLURM: SlurmSettings = {
  partition: null,
  account: null,
  mem: null,
  cpus: null,
  extra: [],
};

/** Options overnight sets on every job: setting them again would break naming, output or requeue. */
export const OWN_OPTIONS = [
  '--job-name',
  '--output',
  '--error',
  '--chdir',
  '--time',
  '--parsable',
  '--requeue',
  '--no-requeue',
  '--wrap',
  '--open-mode',
  '--array',
  '--hold',
];

const SLURM_KEYS = ['partition', 'account', 'mem', 'cpus', 'extra'];
const NAME_LIST = /^[A-Za-z0-9_.-]{1,64}(,[A-Za-z0-9_.-]{1,64}){0,15}$/;
const EXTRA_MAX = 32;

export interface SlurmProblem {
  key: string;
  value: unknown;
  message: string;
}

function word(raw: unknown): string | null {
  return typeof raw === 'number' && Number.isFinite(raw)
    ? String(raw)
    : typeof raw === 'string'
      ? raw.trim()
      : null;
}

/** One `extra` option, or why not. */
export function extraProblem(opt: unknown): string | null {
  if (typeof opt !== 'string') return 'each option must be a string';
  if (!/^--[a-z][a-z0-9-]*(=.*)?$/s.test(opt)) return 'each option must start with -- (e.g. --qos=low)';
  if (opt.length > 512 || /[\0\n\r]/.test(opt)) return 'an option must be one line of at most 512 characters';
  const name = opt.split('=')[0] as string;
  if (OWN_OPTIONS.includes(name)) return `${name} is set by overnight itself`;
  return null;
}

/** The `slurm:` mapping: the settings it gives and one problem per bad value. */
export function parseSlurm(raw: unknown): { slurm: SlurmSettings; problems: SlurmProblem[] } {
  const slurm: SlurmSettings = { ...DEFAULT_SLURM, extra: [] };
  const problems: SlurmProblem[] = [];
  if (raw === null || raw === undefined) return { slurm, problems };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({ key: 'slurm', value: raw, message: `expected a mapping of ${SLURM_KEYS.join(', ')}` });
    return { slurm, problems };
  }
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const bad = (message: string) => problems.push({ key: `slurm.${key}`, value, message });
    if (value === null) continue;
    const text = word(value);
    switch (key) {
      case 'partition':
      case 'account':
        if (text !== null && NAME_LIST.test(text)) slurm[key] = text;
        else bad(`expected a ${key} name (letters, digits, _ . -; a partition may be a comma list)`);
        break;
      case 'mem': {
        const m = text === null ? null : /^(\d{1,9})\s*([KMGT])?B?$/i.exec(text);
        if (m && Number(m[1]) > 0) slurm.mem = `${m[1]}${(m[2] ?? 'M').toUpperCase()}`;
        else bad('expected memory per node such as 4096 (megabytes), 512M or 8G');
        break;
      }
      case 'cpus':
        if (text !== null && /^\d{1,4}$/.test(text) && Number(text) >= 1) slurm.cpus = Number(text);
        else bad('expected a whole number of CPUs, 1 or more');
        break;
      case 'extra': {
        const list = Array.isArray(value) ? value : null;
        if (!list) {
          bad('expected a list of sbatch options, e.g. [--qos=low, --constraint=intel]');
          break;
        }
        if (list.length > EXTRA_MAX) bad(`at most ${EXTRA_MAX} options`);
        for (const opt of list.slice(0, EXTRA_MAX)) {
          const why = extraProblem(opt);
          if (why) problems.push({ key: 'slurm.extra', value: opt, message: why });
          else slurm.extra.push(opt as string);
        }
        break;
      }
      default:
        bad(`unknown key "${key}"; known keys: ${SLURM_KEYS.join(', ')}`);
    }
  }
  return { slurm, problems };
}
