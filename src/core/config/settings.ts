import { parseTargets, type NotifyTarget } from '../notify/targets.js';
import type { BackendName } from '../run/backend.js';
import type { Limits } from '../run/types.js';
import { nearest } from '../typo.js';
import { DEFAULT_SLURM, parseSlurm, type SlurmSettings } from './slurm.js';
import { ACCEPTS, DEFAULT_ALLOWED_TOOLS, parseValue, type Kind } from './values.js';

export { DEFAULT_ALLOWED_TOOLS } from './values.js';

// Settings from config file, environment and flags: pure validation, no I/O.

/** Everything configurable: a run's limits (copied into its run.yaml at launch) and the rest. */
export interface Settings extends Limits {
  runsDir: string;
  claude: string;
  model: string | null;
  duration: number;
  permissionMode: string;
  allowedTools: string[];
  maxCost: number | null;
  /** Where transitions are sent: config file only (a list has no environment variable). */
  notify: NotifyTarget[];
  /** Seconds one delivery attempt may take. */
  notifyTimeout: number;
  /** Attempts before a delivery is given up. */
  notifyTries: number;
  /** Seconds before the first retry of a failed delivery; doubling after. */
  notifyBackoff: number;
  /** Keep working on paid extra usage when the subscription window is spent. */
  allowOverage: boolean;
  /** Passed to every session as --fallback-model (Claude Code switches when the model is overloaded). */
  fallbackModel: string | null;
  /** How sessions run; null: tmux where it is installed, else detached. */
  backend: BackendName | null;
  /** The check a run is verified by (`--verify`); null for none. */
  verify: string | null;
  /** Seconds the check may run. */
  verifyTimeout: number;
  /** Seconds after the end time for one fix session when the check fails (0: none). */
  verifyBudget: number;
  /** Where the check writes a JUnit XML file, relative to its working directory; null for none. */
  verifyJunit: string | null;
  /** The agent's commands and the check in a sandbox: null where it is available, else off. */
  sandbox: boolean | null;
  /** Domains the sandbox lets the agent's commands and the check reach. */
  sandboxNetwork: string[];
  /** More directories the sandbox lets them write. */
  sandboxWrite: string[];
  /** Run the check as the person, unconfined, where no sandbox can hold it. */
  verifyUnconfined: boolean;
  /** A reviewer with fresh eyes after the final check (repository runs). */
  review: boolean;
  /** Seconds the review may take. */
  reviewBudget: number;
  /** The reviewer's own model; null for the run's. */
  reviewModel: string | null;
  /** What every Slurm job gets besides overnight's own options: config file only (core/config/slurm). */
  slurm: SlurmSettings;
}

const LIMIT_FIELDS: readonly (keyof Limits)[] = [
  'maxRestarts',
  'synthesisBudget',
  'staleAfter',
  'hangGrace',
  'backoff',
  'backoffMax',
  'healthyAfter',
  'minUptime',
  'limitMargin',
  'maxTranscript',
  'stopGrace',
  'transientMax',
  'lateReport',
];

/** The limits a run is launched with, out of the settings. */
export function limitsOf(s: Settings): Limits {
  return Object.fromEntries(LIMIT_FIELDS.map((f) => [f, s[f]])) as unknown as Limits;
}

interface KeySpec {
  field: keyof Settings;
  kind: Kind;
  env: string;
}

export const CONFIG_KEYS: Record<string, KeySpec> = {
  runs_dir: { field: 'runsDir', kind: 'path', env: 'OVERNIGHT_HOME' },
  claude: { field: 'claude', kind: 'command', env: 'OVERNIGHT_CLAUDE' },
  backend: { field: 'backend', kind: 'backend', env: 'OVERNIGHT_BACKEND' },
  model: { field: 'model', kind: 'model', env: 'OVERNIGHT_MODEL' },
  duration: { field: 'duration', kind: 'positive-duration', env: 'OVERNIGHT_DURATION' },
  max_restarts: { field: 'maxRestarts', kind: 'count', env: 'OVERNIGHT_MAX_RESTARTS' },
  permission_mode: { field: 'permissionMode', kind: 'permission-mode', env: 'OVERNIGHT_PERMISSION_MODE' },
  allowed_tools: { field: 'allowedTools', kind: 'tools', env: 'OVERNIGHT_ALLOWED_TOOLS' },
  synthesis_budget: {
    field: 'synthesisBudget',
    kind: 'positive-duration',
    env: 'OVERNIGHT_SYNTHESIS_BUDGET',
  },
  stale_after: { field: 'staleAfter', kind: 'positive-duration', env: 'OVERNIGHT_STALE_AFTER' },
  hang_grace: { field: 'hangGrace', kind: 'duration', env: 'OVERNIGHT_HANG_GRACE' },
  backoff: { field: 'backoff', kind: 'duration', env: 'OVERNIGHT_BACKOFF' },
  backoff_max: { field: 'backoffMax', kind: 'duration', env: 'OVERNIGHT_BACKOFF_MAX' },
  healthy_after: { field: 'healthyAfter', kind: 'duration', env: 'OVERNIGHT_HEALTHY_AFTER' },
  min_uptime: { field: 'minUptime', kind: 'duration', env: 'OVERNIGHT_MIN_UPTIME' },
  limit_margin: { field: 'limitMargin', kind: 'duration', env: 'OVERNIGHT_LIMIT_MARGIN' },
  max_transcript: { field: 'maxTranscript', kind: 'size', env: 'OVERNIGHT_MAX_TRANSCRIPT' },
  stop_grace: { field: 'stopGrace', kind: 'positive-duration', env: 'OVERNIGHT_STOP_GRACE' },
  max_cost: { field: 'maxCost', kind: 'money', env: 'OVERNIGHT_MAX_COST' },
  transient_max: { field: 'transientMax', kind: 'duration', env: 'OVERNIGHT_TRANSIENT_MAX' },
  late_report: { field: 'lateReport', kind: 'duration', env: 'OVERNIGHT_LATE_REPORT' },
  allow_overage: { field: 'allowOverage', kind: 'boolean', env: 'OVERNIGHT_ALLOW_OVERAGE' },
  fallback_model: { field: 'fallbackModel', kind: 'model', env: 'OVERNIGHT_FALLBACK_MODEL' },
  verify: { field: 'verify', kind: 'shell', env: 'OVERNIGHT_VERIFY' },
  verify_timeout: { field: 'verifyTimeout', kind: 'positive-duration', env: 'OVERNIGHT_VERIFY_TIMEOUT' },
  verify_budget: { field: 'verifyBudget', kind: 'duration', env: 'OVERNIGHT_VERIFY_BUDGET' },
  verify_junit: { field: 'verifyJunit', kind: 'junit-path', env: 'OVERNIGHT_VERIFY_JUNIT' },
  verify_unconfined: { field: 'verifyUnconfined', kind: 'boolean', env: 'OVERNIGHT_VERIFY_UNCONFINED' },
  sandbox: { field: 'sandbox', kind: 'boolean', env: 'OVERNIGHT_SANDBOX' },
  review: { field: 'review', kind: 'boolean', env: 'OVERNIGHT_REVIEW' },
  review_budget: { field: 'reviewBudget', kind: 'positive-duration', env: 'OVERNIGHT_REVIEW_BUDGET' },
  review_model: { field: 'reviewModel', kind: 'model', env: 'OVERNIGHT_REVIEW_MODEL' },
  sandbox_network: { field: 'sandboxNetwork', kind: 'domains', env: 'OVERNIGHT_SANDBOX_NETWORK' },
  sandbox_write: { field: 'sandboxWrite', kind: 'directories', env: 'OVERNIGHT_SANDBOX_WRITE' },
  notify_timeout: { field: 'notifyTimeout', kind: 'positive-duration', env: 'OVERNIGHT_NOTIFY_TIMEOUT' },
  notify_tries: { field: 'notifyTries', kind: 'count', env: 'OVERNIGHT_NOTIFY_TRIES' },
  notify_backoff: { field: 'notifyBackoff', kind: 'duration', env: 'OVERNIGHT_NOTIFY_BACKOFF' },
};

/**
 * A key no setting has: a typo gets the key it most likely meant, once; only a key like none of
 * them gets the whole list.
 */
function unknownKey(key: string): string {
  const keys = [...Object.keys(CONFIG_KEYS), NOTIFY_KEY, SLURM_KEY];
  const near = nearest(key, keys);
  return near
    ? `unknown key "${key}"; did you mean "${near}"?`
    : `unknown key "${key}"; known keys: ${keys.join(', ')}`;
}

/** Keys a config file may set to null (none). */
const NULLABLE = new Set([
  'model',
  'max_cost',
  'fallback_model',
  'verify',
  'verify_junit',
  'sandbox',
  'review_model',
]);

/** A structured key, validated on its own (core/notify/targets.ts): a bad target is skipped alone. */
const NOTIFY_KEY = 'notify';
/** Another (core/config/slurm.ts): a bad value is reported and left out alone. */
const SLURM_KEY = 'slurm';

export function defaultSettings(home: string): Settings {
  return {
    runsDir: `${home}/overnight-runs`,
    claude: 'claude',
    model: null,
    duration: 8 * 3600,
    maxRestarts: 5,
    permissionMode: 'acceptEdits',
    allowedTools: [...DEFAULT_ALLOWED_TOOLS],
    synthesisBudget: 30 * 60,
    staleAfter: 30 * 60,
    hangGrace: 5 * 60,
    backoff: 30,
    backoffMax: 10 * 60,
    healthyAfter: 10 * 60,
    minUptime: 60,
    limitMargin: 5 * 60,
    maxTranscript: 256 * 1024 * 1024,
    stopGrace: 10,
    maxCost: null,
    notify: [],
    notifyTimeout: 10,
    notifyTries: 5,
    notifyBackoff: 120,
    transientMax: 2 * 3600,
    lateReport: 6 * 3600,
    allowOverage: false,
    fallbackModel: null,
    backend: null,
    verify: null,
    verifyTimeout: 20 * 60,
    verifyBudget: 0,
    verifyJunit: null,
    verifyUnconfined: false,
    review: false,
    reviewBudget: 10 * 60,
    reviewModel: null,
    sandbox: null,
    sandboxNetwork: [],
    sandboxWrite: [],
    slurm: { ...DEFAULT_SLURM, extra: [] },
  };
}

/** One bad value: where it came from, what it was, what is accepted. */
export interface ConfigProblem {
  key: string;
  source: string;
  value: unknown;
  message: string;
}

export function describeProblem(p: ConfigProblem): string {
  if (p.value === undefined) return `${p.source}: ${p.message}`;
  return `${p.source}: ${p.key} = ${JSON.stringify(p.value)} is not valid; ${p.message}`;
}

export interface Layers {
  home: string;
  /** Parsed config file (a YAML mapping), and its path for messages. */
  file?: { path: string; data: unknown };
  env: Record<string, string | undefined>;
  /** Flag values keyed by config key (snake_case), as typed by the user. */
  flags?: Record<string, unknown>;
}

/**
 * Merges default < config file < environment < flags. Every problem is returned and
 * the default (or the lower layer's value) stands for that key; the caller decides
 * whether a problem is fatal (launch) or a warning (reconcile).
 */
export function resolveSettings(layers: Layers): {
  settings: Settings;
  problems: ConfigProblem[];
  /** The keys some layer set (a default may depend on whether the person chose a value). */
  chosen: string[];
} {
  const settings = defaultSettings(layers.home) as unknown as Record<string, unknown>;
  const problems: ConfigProblem[] = [];
  const chosen = new Set<string>();
  const apply = (key: string, raw: unknown, source: string) => {
    const spec = CONFIG_KEYS[key];
    if (!spec) {
      problems.push({ key, source, value: undefined, message: unknownKey(key) });
      return;
    }
    const parsed = parseValue(spec.kind, raw, layers.home);
    if (parsed.ok) {
      settings[spec.field] = parsed.value;
      chosen.add(key);
    } else problems.push({ key, source, value: raw, message: parsed.why ?? ACCEPTS[spec.kind] });
  };

  const file = layers.file;
  if (file && file.data !== null && file.data !== undefined) {
    if (typeof file.data !== 'object' || Array.isArray(file.data)) {
      problems.push({
        key: '',
        source: file.path,
        value: undefined,
        message: 'expected a mapping of keys to values (key: value)',
      });
    } else {
      for (const [key, raw] of Object.entries(file.data as Record<string, unknown>)) {
        if (raw === null && NULLABLE.has(key)) continue;
        if (key === NOTIFY_KEY) {
          const { targets, problems: skipped } = parseTargets(raw, layers.home);
          settings.notify = targets;
          for (const message of skipped) problems.push({ key, source: file.path, value: undefined, message });
          continue;
        }
        if (key === SLURM_KEY) {
          const parsed = parseSlurm(raw);
          settings.slurm = parsed.slurm;
          for (const p of parsed.problems) problems.push({ ...p, source: file.path });
          continue;
        }
        apply(key, raw, file.path);
      }
    }
  }
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const raw = layers.env[spec.env];
    if (raw !== undefined && raw !== '') apply(key, raw, `environment ${spec.env}`);
  }
  for (const [key, raw] of Object.entries(layers.flags ?? {})) {
    if (raw !== undefined) apply(key, raw, `--${key.replace(/_/g, '-')}`);
  }
  return { settings: settings as unknown as Settings, problems, chosen: [...chosen] };
}
