import { chooseBackend, type BackendName } from '../run/backend.js';
import { checkTmux, type BinaryFacts } from './binaries.js';
import type { CheckResult, Where } from './checks.js';

// Doctor's line on how tonight's sessions will run: tmux where it is installed (checked as
// before), else detached, which needs nothing more; a configured tmux that is missing is a problem.

export function checkBackend(wanted: BackendName | null, tmux: BinaryFacts, where: Where): CheckResult {
  const chosen = chooseBackend(wanted, tmux.resolved !== null);
  if ('error' in chosen) {
    const missing = checkTmux(tmux, where);
    return { ...missing, fix: `${missing.fix ?? 'install tmux'}, or set backend: detached in config.yaml` };
  }
  if (chosen.backend === 'detached') {
    const path = where.asScheduler ? "the scheduler's PATH" : 'PATH';
    const why = wanted === 'detached' ? 'backend: detached is configured' : `tmux is not on ${path}`;
    return {
      name: 'backend',
      status: 'ok',
      detail:
        `runs use the detached backend (${why}): each session in a process group of its own, ` +
        'with no terminal; watch one with `overnight logs -f <run>`',
    };
  }
  const result = checkTmux(tmux, where);
  return { ...result, detail: `${result.detail}; runs use the tmux backend` };
}
