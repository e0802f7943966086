// The harness's command line: numbers checked, with the defaults of a full run.
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    runs: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '24' },
    night: { type: 'string', default: '40' },
    seed: { type: 'string', default: '1' },
    'disk-every': { type: 'string', default: '40' },
    'stop-share': { type: 'string', default: '0.15' },
    'child-share': { type: 'string', default: '0.15' },
    backend: { type: 'string', default: 'tmux' },
    json: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    nights: { type: 'string' },
  },
});

/** @param {string} name @param {number} min */
const number = (name, min) => {
  const n = Number(opts[name]);
  if (!Number.isFinite(n) || n < min) {
    process.stderr.write(`chaos: --${name} must be a number ≥ ${min}, not ${JSON.stringify(opts[name])}\n`);
    process.exit(2);
  }
  return n;
};

if (opts.backend !== 'tmux' && opts.backend !== 'detached') {
  process.stderr.write(`chaos: --backend must be tmux or detached, not ${JSON.stringify(opts.backend)}\n`);
  process.exit(2);
}

export const options = {
  runs: number('runs', 1),
  concurrency: number('concurrency', 1),
  night: number('night', 5),
  seed: number('seed', 0),
  diskEvery: number('disk-every', 0),
  stopShare: number('stop-share', 0),
  childShare: number('child-share', 0),
  /** How the runs' sessions run: the goals are the same on either. */
  backend: /** @type {'tmux' | 'detached'} */ (opts.backend),
  json: Boolean(opts.json),
  keep: Boolean(opts.keep),
  /** A file to write every judged night to, one JSON object a line (for a look at the figures). */
  nights: opts.nights ?? null,
};
