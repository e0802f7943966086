// Which of the files a night changed are its tests or its test runner's configuration: by the
// conventions of the common runners and by the check's own command (a script it names). Listed
// beside the verdict, so the person looks at them first. Pure.

const TEST_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  'spec',
  'specs',
  'testing',
  'e2e',
  'testdata',
  'fixtures',
]);

const CONFIG = [
  /^(?:vitest|vite|jest|playwright|cypress|karma|ava|wdio|nyc|babel)\.config\.[cm]?[jt]s$/,
  /^jest\.setup\.[cm]?[jt]s$/,
  /^\.mocharc(?:\.[a-z]+)?$/,
  /^(?:pytest\.ini|conftest\.py|noxfile\.py|tox\.ini|setup\.cfg|pyproject\.toml)$/,
  /^(?:Makefile|makefile|GNUmakefile|justfile|Justfile|Rakefile|Taskfile\.ya?ml)$/,
  /^\.?(?:eslintrc|c8rc|nycrc)(?:\.[a-z]+)?$/,
];

const TEST_FILE = [
  /\.(?:test|spec)\.[^./]+$/,
  /^test_[^/]*\.py$/,
  /_test\.(?:py|go|rb|exs?)$/,
  /Test\.java$/,
  /_spec\.rb$/,
];

/** Words of the check's command that look like files (`./scripts/test.sh`, `tools/check.py`). */
function commandFiles(command: string): Set<string> {
  const out = new Set<string>();
  for (const raw of command.split(/\s+/)) {
    const w = raw.replace(/^['"]|['"]$/g, '').replace(/^\.\//, '');
    if (w.includes('/') || /\.(?:sh|py|js|mjs|cjs|ts|rb|pl|bash)$/.test(w)) out.add(w);
  }
  return out;
}

/**
 * The changed paths (relative to the repository's top; `subdir` where the check runs) that are
 * tests or test configuration. `scriptsChanged`: package.json's `scripts` differ from the base's
 * (its other changes are no test's).
 */
export function changedTestFiles(
  changed: readonly string[],
  command: string,
  scriptsChanged: (path: string) => boolean,
  subdir = '',
): string[] {
  const named = commandFiles(command);
  const out: string[] = [];
  for (const path of changed) {
    const parts = path.split('/');
    const base = parts.at(-1) ?? '';
    const local = subdir && path.startsWith(`${subdir}/`) ? path.slice(subdir.length + 1) : path;
    const test =
      parts.slice(0, -1).some((d) => TEST_DIRS.has(d)) ||
      TEST_FILE.some((re) => re.test(base)) ||
      CONFIG.some((re) => re.test(base)) ||
      named.has(local) ||
      named.has(path);
    if (test) out.push(path);
    else if (base === 'package.json' && scriptsChanged(path)) out.push(`${path} (scripts)`);
  }
  return out;
}

/** Whether two package.json texts differ in their `scripts` (either unreadable counts as differing). */
export function scriptsDiffer(before: string | null, after: string | null): boolean {
  const scripts = (text: string | null) => {
    if (text === null) return 'none';
    try {
      const v = JSON.parse(text) as { scripts?: unknown };
      return JSON.stringify(v?.scripts ?? null);
    } catch {
      return 'unreadable';
    }
  };
  const a = scripts(before);
  return a === 'unreadable' || a !== scripts(after);
}
