// Lint (part of `npm test`): typescript-eslint's type-checked rules for the code that runs, plus the
// architecture's import boundaries (docs/architecture.md): the core never imports a face (Electron,
// HTTP, the UI contract's transports); shared code imports neither side; the renderer only shared code.
import tseslint from 'typescript-eslint'

const FACES = ['**/api/**', '**/electron/**', '**/ui-contract/**', '**/serve', '**/app', '**/index']
const HTTP_AND_ELECTRON = ['electron', 'fastify', '@fastify/*']

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/**', 'bench/**', '*.config.*'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // Interface implementations answer promises without awaiting anything (sandbox channel, cache store).
      '@typescript-eslint/require-await': 'off',
      // zustand actions and Baileys' socket functions are closures, not `this`-bound methods.
      '@typescript-eslint/unbound-method': 'off'
    }
  },
  {
    files: ['src/main/{bot,channel,services,store,webhooks,media,operations}/**/*.ts', 'src/main/{core,clock,config,events,ids,logger,lru,validation,version}.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: HTTP_AND_ELECTRON, message: 'The core stays free of Electron and HTTP: only the faces import them.' }, { group: FACES, message: 'The core never imports a face.' }] }]
    }
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/main/**', '**/renderer/**', 'node:*', ...HTTP_AND_ELECTRON], message: 'Shared code is pure: both processes import it.' }] }]
    }
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/main/**', 'node:*', ...HTTP_AND_ELECTRON], message: 'The renderer talks to main only through the UI contract.' }] }]
    }
  }
)
