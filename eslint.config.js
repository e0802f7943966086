import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const IO_MODULES = [
  'fs',
  'fs/promises',
  'child_process',
  'os',
  'net',
  'http',
  'https',
  'dgram',
  'worker_threads',
];

const IO_PATHS = [
  ...IO_MODULES.flatMap((m) => [m, `node:${m}`]).map((name) => ({
    name,
    message: 'src/core is pure: I/O belongs in src/adapters.',
  })),
  { name: 'execa', message: 'src/core is pure: processes belong in src/adapters.' },
  { name: 'proper-lockfile', message: 'src/core is pure: the lock belongs in src/adapters.' },
];

// The direction of imports between src/'s top-level folders: each may import the folders listed
// (and itself), nothing else; a command imports no other command; nothing imports src/cli.ts or
// src/main.ts. Static imports, re-exports, type imports and dynamic import() alike (the rule
// `overnight/folder-imports` below). The order has no loop: read/ (a run read for people: rows,
// story, digest, the read context) is below notify/, reconcile/ and dashboard/, which import it;
// notify/ is below reconcile/; dashboard/ never imports reconcile/.
const FOLDERS = [
  'adapters',
  'app',
  'cli',
  'commands',
  'core',
  'dashboard',
  'logs',
  'notify',
  'read',
  'reconcile',
  'runs',
  'schedule',
];
const MAY_IMPORT = {
  core: [],
  adapters: ['core'],
  app: ['adapters', 'core'],
  schedule: ['adapters', 'core'],
  logs: ['adapters', 'app', 'core'],
  read: ['adapters', 'app', 'core'],
  notify: ['adapters', 'app', 'core', 'read'],
  reconcile: ['adapters', 'app', 'core', 'notify', 'read'],
  dashboard: ['adapters', 'app', 'core', 'read'],
  runs: ['adapters', 'app', 'core', 'notify', 'read', 'reconcile'],
  commands: [
    'adapters',
    'app',
    'core',
    'dashboard',
    'logs',
    'notify',
    'read',
    'reconcile',
    'runs',
    'schedule',
  ],
  cli: ['app', 'commands'],
};

const SRC = fileURLToPath(new URL('src/', import.meta.url));

/** What a file of src/<from>/ may not import at `spec`, as a message; null when it may. */
function folderProblem(file, spec) {
  const [from] = relative(SRC, file).split(sep);
  if (!Object.hasOwn(MAY_IMPORT, from)) return null;
  const io = IO_PATHS.find((p) => p.name === spec);
  if (from === 'core' && io) return io.message;
  if (!spec.startsWith('.')) return null;
  const target = relative(SRC, resolve(dirname(file), spec)).split(sep);
  const [to] = target;
  if (target.length === 1 && (to === 'cli.js' || to === 'main.js'))
    return `src/${from} may not import src/${to}: it is the entry, above every folder.`;
  if (from === 'commands' && to === 'commands')
    return 'A command imports no other command: shared work belongs in src/runs or src/app.';
  if (!FOLDERS.includes(to) || to === from || MAY_IMPORT[from].includes(to)) return null;
  return `src/${from} may import only ${MAY_IMPORT[from].join(', ') || 'itself'} (eslint.config.js).`;
}

/** The folder rule, for every way a module names another: a literal path, or for import(), any. */
const folderImports = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const check = (node, source) => {
      if (!source) return;
      const spec =
        source.type === 'Literal'
          ? source.value
          : source.type === 'TSLiteralType'
            ? source.literal.value
            : null;
      if (typeof spec !== 'string') {
        // The bundle splits at literal import()s only (scripts/build.mjs), and lint reads only those.
        if (node.type === 'ImportExpression')
          context.report({ node, message: 'import() takes a literal path: the folder rule must see it.' });
        return;
      }
      const message = folderProblem(context.filename, spec);
      if (message) context.report({ node, message });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      TSImportType: (node) => check(node, node.argument),
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // bin/ is CommonJS (bin/package.json): the loader starts no ES module machinery.
    files: ['bin/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The formatter decides the layout; what it cannot break (a long string) is split by hand.
    files: ['src/**/*.ts'],
    rules: { 'max-len': ['error', { code: 110, ignoreUrls: true }] },
  },
  {
    // The decision core is pure: values in, values out. No files, processes, locks or clock (its
    // imports: IO_PATHS, by the folder rule below).
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'src/core reads no clock: take `now` as a value.',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'src/core reads no clock: take `now` as a value.',
        },
        {
          selector: "CallExpression[callee.object.name='performance'][callee.property.name='now']",
          message: 'src/core reads no clock: take `now` as a value.',
        },
        {
          selector: "MemberExpression[object.name='process']",
          message: 'src/core reads no process state (env, cwd, platform): take it as a value.',
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { overnight: { rules: { 'folder-imports': folderImports } } },
    rules: { 'overnight/folder-imports': 'error' },
  },
);
