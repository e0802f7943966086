// `verify_junit`: where the check command writes a JUnit XML file, relative to its working
// directory (the agent's). Only such a path is accepted: no absolute path, no `..`, no control
// characters, so the file read back is always one below that directory. Pure.

const MAX_PATH = 512;

/** The path as recorded, or null when it is not one below the working directory. */
export function junitPath(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const p = raw.trim().replace(/^(?:\.\/)+/, '');
  if (p === '' || p.length > MAX_PATH || p.startsWith('/') || p.startsWith('-') || p.endsWith('/'))
    return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) return null;
  return p.split('/').some((s) => s === '..' || s === '') ? null : p;
}

export const JUNIT_ACCEPTS =
  'expected a path relative to the check\'s working directory, without "..", such as reports/junit.xml';
