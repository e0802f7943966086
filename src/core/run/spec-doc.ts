import type { ReviewSpec } from '../review/types.js';
import { domainProblem, type SandboxSpec } from '../sandbox/policy.js';
import { junitPath } from '../verify/junit-path.js';
import type { VerifySpec } from '../verify/types.js';
import { isBackend, type BackendName } from './backend.js';
import { isSubdir, numberIn, timeOf } from './bounds.js';
import type { RunSpec } from './types.js';

// run.yaml: what launch decided, as a plain document and back. Read back, it is untrusted input
// like every record: each field checked for its type, its range and its length.

/** run.yaml as a plain object: snake_case keys, durations in seconds, times in ISO 8601. */
export function specToDoc(spec: RunSpec): Record<string, unknown> {
  const l = spec.limits;
  return {
    id: spec.id,
    task: spec.task,
    name: spec.name,
    model: spec.model,
    started_at: spec.startedAt.toISOString(),
    ends_at: spec.endsAt.toISOString(),
    session_id: spec.sessionId,
    permission_mode: spec.permissionMode,
    allowed_tools: spec.allowedTools,
    limits_seconds: {
      max_restarts: l.maxRestarts,
      synthesis_budget: l.synthesisBudget,
      stale_after: l.staleAfter,
      hang_grace: l.hangGrace,
      backoff: l.backoff,
      backoff_max: l.backoffMax,
      healthy_after: l.healthyAfter,
      min_uptime: l.minUptime,
      limit_margin: l.limitMargin,
      max_transcript: l.maxTranscript,
      stop_grace: l.stopGrace,
      transient_max: l.transientMax,
      late_report: l.lateReport,
    },
    max_cost_usd: spec.maxCost,
    allow_overage: spec.allowOverage,
    fallback_model: spec.fallbackModel,
    ...(spec.continues ? { continues: spec.continues } : {}),
    ...(spec.review ? { review: { budget_seconds: spec.review.budget, model: spec.review.model } } : {}),
    backend: spec.backend,
    ...(spec.sandbox ? { sandbox: { network: spec.sandbox.network, write: spec.sandbox.write } } : {}),
    ...(spec.verify
      ? {
          verify: {
            command: spec.verify.command,
            timeout_seconds: spec.verify.timeout,
            budget_seconds: spec.verify.budget,
            ...(spec.verify.junit ? { junit: spec.verify.junit } : {}),
            ...(spec.verify.unconfined ? { unconfined: true } : {}),
          },
        }
      : {}),
    paths: {
      claude: spec.paths.claude,
      tmux: spec.paths.tmux,
      node: spec.paths.node,
      cli: spec.paths.cli,
      tmux_socket: spec.paths.tmuxSocket,
      ...(spec.paths.bwrap ? { bwrap: spec.paths.bwrap } : {}),
    },
    repo: spec.repo && {
      path: spec.repo.path,
      base: spec.repo.base,
      branch: spec.repo.branch,
      worktree: spec.repo.worktree,
      ...(spec.repo.subdir ? { subdir: spec.repo.subdir } : {}),
      ...(spec.repo.gitDir ? { git_dir: spec.repo.gitDir } : {}),
    },
  };
}

function need<T>(ok: boolean, value: T, what: string): T {
  if (!ok) throw new Error(`${what} is missing or invalid`);
  return value;
}

export function specFromDoc(doc: unknown): RunSpec {
  const d = need(typeof doc === 'object' && doc !== null, doc as Record<string, unknown>, 'the document');
  // Ids, models, paths: a path is at most PATH_MAX (4096) bytes.
  const str = (k: string, from = d) =>
    need(typeof from[k] === 'string' && from[k] !== '' && from[k].length <= 4096, from[k] as string, k);
  const time = (k: string) => {
    const t = timeOf(str(k));
    return need(t !== null, t as Date, k);
  };
  const l = need(
    typeof d.limits_seconds === 'object' && d.limits_seconds !== null,
    d.limits_seconds as Record<string, unknown>,
    'limits_seconds',
  );
  // Seconds, counts and bytes: finite, and far below where arithmetic on them loses precision.
  const num = (k: string) => need(numberIn(l[k], 0, 1e12) !== null, l[k] as number, `limits_seconds.${k}`);
  const p = need(
    typeof d.paths === 'object' && d.paths !== null,
    d.paths as Record<string, unknown>,
    'paths',
  );
  const tools = need(
    Array.isArray(d.allowed_tools) && d.allowed_tools.every((t) => typeof t === 'string'),
    d.allowed_tools as string[],
    'allowed_tools',
  );
  // Runs launched before repositories and names were recorded are plain runs without a name.
  const r = d.repo === null || d.repo === undefined ? null : (d.repo as Record<string, unknown>);
  need(r === null || typeof r === 'object', r, 'repo');
  // Runs recorded before backends existed ran in tmux.
  const backend =
    d.backend === undefined ? 'tmux' : need(isBackend(d.backend), d.backend as BackendName, 'backend');
  const repoStr = (k: string) =>
    need(typeof r?.[k] === 'string' && r[k] !== '', r?.[k] as string, `repo.${k}`);
  return {
    id: str('id'),
    task: need(typeof d.task === 'string', d.task as string, 'task'),
    name: typeof d.name === 'string' && d.name !== '' ? d.name : null,
    repo: r && {
      path: repoStr('path'),
      base: repoStr('base'),
      branch: repoStr('branch'),
      worktree: repoStr('worktree'),
      ...(r.subdir === undefined
        ? {}
        : { subdir: need(isSubdir(r.subdir), r.subdir as string, 'repo.subdir') }),
      ...(typeof r.git_dir === 'string' && r.git_dir.startsWith('/') ? { gitDir: r.git_dir } : {}),
    },
    model: d.model === null || d.model === undefined ? null : str('model'),
    startedAt: time('started_at'),
    endsAt: time('ends_at'),
    sessionId: str('session_id'),
    permissionMode: str('permission_mode'),
    allowedTools: tools,
    limits: {
      maxRestarts: num('max_restarts'),
      synthesisBudget: num('synthesis_budget'),
      staleAfter: num('stale_after'),
      hangGrace: num('hang_grace'),
      backoff: num('backoff'),
      backoffMax: num('backoff_max'),
      healthyAfter: num('healthy_after'),
      minUptime: num('min_uptime'),
      // Added after the first runs were written: those get the default.
      limitMargin: l.limit_margin === undefined ? 300 : num('limit_margin'),
      maxTranscript: l.max_transcript === undefined ? 256 * 1024 * 1024 : num('max_transcript'),
      stopGrace: l.stop_grace === undefined ? 10 : num('stop_grace'),
      transientMax: l.transient_max === undefined ? 2 * 3600 : num('transient_max'),
      lateReport: l.late_report === undefined ? 6 * 3600 : num('late_report'),
    },
    maxCost: numberIn(d.max_cost_usd, Number.MIN_VALUE, 1e9),
    // Added with the overage and fallback policies: older runs never allowed overage, had no fallback.
    allowOverage: d.allow_overage === true,
    fallbackModel: d.fallback_model === null || d.fallback_model === undefined ? null : str('fallback_model'),
    ...(typeof d.continues === 'string' && d.continues !== '' ? { continues: d.continues } : {}),
    backend,
    ...sandboxFromDoc(d.sandbox),
    ...reviewFromDoc(d.review),
    ...verifyFromDoc(d.verify),
    paths: {
      claude: str('claude', p),
      // A detached run launched where tmux is not installed has none.
      tmux: backend === 'tmux' || (p.tmux !== undefined && p.tmux !== null) ? str('tmux', p) : null,
      node: str('node', p),
      cli: str('cli', p),
      // Runs launched before the socket was recorded use whatever server the caller's environment names.
      tmuxSocket: typeof p.tmux_socket === 'string' && p.tmux_socket !== '' ? p.tmux_socket : null,
      ...(p.bwrap === undefined ? {} : { bwrap: need(absolute(p.bwrap), p.bwrap as string, 'paths.bwrap') }),
    },
  };
}

/** run.yaml's `verify`: absent for runs without a check; a bad one is an error like any field. */
function verifyFromDoc(v: unknown): { verify?: VerifySpec } {
  if (v === undefined || v === null) return {};
  const o = need(typeof v === 'object', v as Record<string, unknown>, 'verify');
  const command = need(
    typeof o.command === 'string' &&
      o.command.trim() !== '' &&
      o.command.length <= 4096 &&
      !o.command.includes('\0'),
    o.command as string,
    'verify.command',
  );
  const timeout = need(
    numberIn(o.timeout_seconds, 1, 1e9) !== null,
    o.timeout_seconds as number,
    'verify.timeout_seconds',
  );
  const budget = need(
    numberIn(o.budget_seconds, 0, 1e9) !== null,
    o.budget_seconds as number,
    'verify.budget_seconds',
  );
  const junit =
    o.junit === undefined ? undefined : need(junitPath(o.junit) !== null, o.junit as string, 'verify.junit');
  const unconfined = o.unconfined === true ? { unconfined: true } : {};
  return { verify: { command, timeout, budget, ...(junit ? { junit } : {}), ...unconfined } };
}

const absolute = (v: unknown): boolean =>
  typeof v === 'string' && v.startsWith('/') && v.length <= 4096 && !v.includes('\0');

/** run.yaml's `sandbox`: domains and absolute directories, each list bounded. */
function sandboxFromDoc(v: unknown): { sandbox?: SandboxSpec } {
  if (v === undefined || v === null) return {};
  const o = need(typeof v === 'object' && !Array.isArray(v), v as Record<string, unknown>, 'sandbox');
  const list = (k: string, ok: (x: unknown) => boolean) =>
    need(Array.isArray(o[k]) && o[k].length <= 100 && o[k].every(ok), o[k] as string[], `sandbox.${k}`);
  return {
    sandbox: {
      network: list('network', (x) => typeof x === 'string' && domainProblem(x) === null),
      write: list('write', absolute),
    },
  };
}

/** run.yaml's `review`: its budget and model. */
function reviewFromDoc(v: unknown): { review?: ReviewSpec } {
  if (v === undefined || v === null) return {};
  const o = need(typeof v === 'object' && !Array.isArray(v), v as Record<string, unknown>, 'review');
  const budget = need(
    numberIn(o.budget_seconds, 1, 1e9) !== null,
    o.budget_seconds as number,
    'review.budget_seconds',
  );
  const model =
    o.model === null || o.model === undefined
      ? null
      : need(
          typeof o.model === 'string' && /^[A-Za-z0-9][A-Za-z0-9._:[\]-]{0,99}$/.test(o.model),
          o.model as string,
          'review.model',
        );
  return { review: { budget, model } };
}
