// The one lint of the code (npm run lint, part of npm run check). Rules left off or eased say why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y';
import globals from 'globals';

/**
 * The architecture as import rules (docs/ARCHITECTURE.md): each entry forbids a layer from
 * reaching into one it must not know.
 */
const boundaries = [
  {
    files: ['web/**/*.{ts,tsx}'],
    patterns: [{ group: ['**/server/**', '**/server'], message: 'The web app talks to the server through the API only; shared code lives in common/.' }],
  },
  {
    files: ['common/**/*.ts'],
    patterns: [{ group: ['**/server/**', '**/web/**'], message: 'common/ is shared by both sides and depends on neither.' }],
  },
  {
    files: ['server/routes/**/*.ts'],
    // Tests and the sign-in test driver set up what they check straight in the tables.
    ignores: ['server/routes/**/*.test.ts', 'server/routes/entra/signInDriver.ts'],
    patterns: [
      {
        group: ['**/db/schema', '**/db/schema/**'],
        message: 'Routes read and write through db/queries and commands, never the tables directly.',
      },
    ],
  },
  {
    files: ['server/commands/**/*.ts', 'server/db/**/*.ts', 'server/policies/**/*.ts', 'server/presenters/**/*.ts'],
    ignores: ['**/*.test.ts'],
    patterns: [
      {
        group: ['**/plugins/*', '!**/plugins/context'],
        message: 'Commands, queries, policies and presenters do not depend on the HTTP plugins (plugins/context holds only the shared types).',
      },
      { group: ['**/routes/**'], message: 'Routes depend on commands and queries, not the other way round.' },
    ],
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'test-results/**',
      'playwright-report/**',
      'data/**',
      '.e2e-data/**',
      'bench/out/**',
      'server/db/migrations/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    rules: {
      // Unused arguments named with a leading underscore say "deliberately unused".
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Test helpers and JSON answers in tests are loosely typed on purpose; the product code is checked by tsc's strict mode.
      '@typescript-eslint/no-explicit-any': 'off',
      // Empty catch blocks each carry a comment saying why the failure is ignored.
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks, 'jsx-a11y': jsxA11y },
    rules: {
      // The rules of hooks. The plugin's other recommended rules (refs, set-state-in-effect, ...) state what the
      // React Compiler needs to optimise a component; the app is not built with the compiler.
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      ...jsxA11y.flatConfigs.recommended.rules,
      // Modals put the first field in focus as people expect when they open one (Mantine's data-autofocus).
      'jsx-a11y/no-autofocus': 'off',
      // A scrolling panel is a labelled region that must take focus, so keyboard users can scroll it (axe's scrollable-region-focusable).
      'jsx-a11y/no-noninteractive-tabindex': ['error', { roles: ['region', 'tabpanel'], tags: [] }],
    },
  },
  ...boundaries.map(({ files, ignores, patterns }) => ({
    files,
    ...(ignores ? { ignores } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  })),
);
