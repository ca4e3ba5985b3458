// ESLint for the TypeScript and JavaScript sources (`make lint`; `make test-fast` runs it). Type-aware, so that
// floating and misused promises are caught: an un-awaited activity, client call or stream write fails silently.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import unusedImports from 'eslint-plugin-unused-imports';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.venv/',
      '.venv-bfcl/',
      '.venv-vllm/',
      '.venv-vllm-gpu/',
      '.flywheel/',
      'dist/',
      'trainer/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'unused-imports': unusedImports },
    rules: {
      // node:test's describe/it return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // `cond ? a.push(x) : b.push(x)` and `ok || fail()` are statements here on purpose.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // An error rethrown as an InputError carries the caught error's message already, naming file and row.
      'preserve-caught-error': 'off',
      // JSON from servers, traces and fixtures is read loosely in a few places on purpose.
      '@typescript-eslint/no-explicit-any': 'off',
      // unused imports are removed by `make format`; unused variables are named with a leading underscore.
      '@typescript-eslint/no-unused-vars': 'off',
      'unused-imports/no-unused-imports': 'error',
      'unused-imports/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly' },
    },
  },
);
