import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'src/generated/',
      'src/ui/public/assets/',
      'dist/',
      'coverage/',
      'test-results/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-control-regex': 'off',
    },
  },
  {
    // TypeScript checks names (with the DOM library for the page): ESLint's no-undef only misreads globals.
    files: ['**/*.ts'],
    rules: { 'no-undef': 'off' },
  },
  {
    // The page runs in the browser: from the server's code it may import types (the API's answers) and the
    // shared words (src/ui/vocabulary.ts), nothing that would pull server code into the bundle.
    files: ['src/ui/page/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['../../*', '../../../*', '!../../vocabulary.js', '!../vocabulary.js'],
              allowTypeImports: true,
              message: 'The page imports only types and src/ui/vocabulary.ts from outside src/ui/page.',
            },
          ],
        },
      ],
    },
  },
  {
    // The Settings page's cards, a folder deeper: the same rule, and the settings schemas the API parses
    // with (src/settings, zod/mini and plain checks: made for the bundle).
    files: ['src/ui/page/pages/settings/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '../../../*',
                '!../../../vocabulary.js',
                '!../../../..',
                '../../../../*',
                '!../../../../settings',
              ],
              allowTypeImports: true,
              message:
                'A settings card imports only types, src/ui/vocabulary.ts and src/settings from outside src/ui/page.',
            },
          ],
        },
      ],
    },
  },
);
