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
// (and itself), nothing else; a command imports no other command. Static imports only (a dynamic
// import() is not checked). The order has no loop: read/ (a run read for people: rows, story,
// digest, the read context) is below notify/, reconcile/ and dashboard/, which import it; notify/
// is below reconcile/; dashboard/ never imports reconcile/.
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

/** One config per depth of src/<folder>/…: `../` climbs out of the folder at a known depth only. */
function importRule(folder, extraPaths = []) {
  const banned = [
    ...FOLDERS.filter((f) => f !== folder && !MAY_IMPORT[folder].includes(f)),
    'cli\\.js',
    'main\\.js',
  ];
  return [1, 2, 3].map((depth) => ({
    files: [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: extraPaths,
          patterns: [
            {
              regex: `^(\\.\\./){${depth}}(${banned.join('|')})(/|$)`,
              message: `src/${folder} may import only ${MAY_IMPORT[folder].join(', ') || 'itself'} (eslint.config.js).`,
            },
            ...(folder === 'commands'
              ? [
                  {
                    regex: '^\\./',
                    message:
                      'A command imports no other command: shared work belongs in src/runs or src/app.',
                  },
                ]
              : []),
          ],
        },
      ],
    },
  }));
}

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
    // imports: importRule('core', IO_PATHS) below).
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
  ...FOLDERS.flatMap((f) => importRule(f, f === 'core' ? IO_PATHS : [])),
);
