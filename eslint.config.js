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
    // The formatter decides the layout; what it cannot break (a long string) is split by hand.
    files: ['src/**/*.ts'],
    rules: { 'max-len': ['error', { code: 110, ignoreUrls: true }] },
  },
  {
    // The decision core is pure: values in, values out. No files, processes, locks or clock.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...IO_MODULES.flatMap((m) => [m, `node:${m}`]).map((name) => ({
              name,
              message: 'src/core is pure: I/O belongs in src/adapters.',
            })),
            { name: 'execa', message: 'src/core is pure: processes belong in src/adapters.' },
            { name: 'proper-lockfile', message: 'src/core is pure: the lock belongs in src/adapters.' },
          ],
        },
      ],
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
);
