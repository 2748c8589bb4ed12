// Lint (part of `npm test`): typescript-eslint's type-checked rules for the code that runs, plus the
// architecture's import boundaries (docs/architecture.md): the core never imports a face (Electron,
// HTTP, the UI contract's transports); shared code imports neither side; the renderer only shared code.
import tseslint from 'typescript-eslint'

const FACES = ['**/api/**', '**/electron/**', '**/ui-contract/**', '**/serve', '**/app', '**/index']
const HTTP_AND_ELECTRON = ['electron', 'fastify', '@fastify/*']
// SQLite runs only in its worker threads (docs/storage.md "Threads"): the main thread serves the API,
// the WhatsApp sockets and Electron's IPC and must never wait for a statement or an fsync. The thread's
// own modules (its entry, what it hosts, its synchronous Kysely dialect) are the only ones that may use
// node:sqlite, and no other module may import them.
const SQLITE_THREAD_FILES = ['src/main/store/db/sqlite-thread/thread.ts', 'src/main/store/db/sqlite-thread/host.ts', 'src/main/store/db/sqlite-thread/sync-dialect.ts']
const NO_SQLITE = { name: 'node:sqlite', message: 'SQLite runs only in its threads (src/main/store/db/sqlite-thread/): go through the repositories.' }
const THREAD_ONLY = { group: ['**/sqlite-thread/thread', '**/sqlite-thread/host', '**/sqlite-thread/sync-dialect'], message: 'Thread-only code: the main thread reaches SQLite through the repositories (sqlite-thread/threaded-repositories.ts) or Kysely (sqlite-thread/thread-dialect.ts).' }
// One back-off rule (src/shared/domain/backoff.ts, backoffDelayMs): a retry that waits longer after each
// failure passes its timing to it instead of doubling a delay of its own.
const NO_LOCAL_BACKOFF = [
  {
    selector: "CallExpression[callee.object.name='Math'][callee.property.name='min'] BinaryExpression[operator='*'][right.value=2]",
    message: 'No local back-off: use backoffDelayMs (src/shared/domain/backoff.ts) with this retry\'s timing.'
  },
  {
    selector: "CallExpression[callee.object.name='Math'][callee.property.name='min'] BinaryExpression[operator='**'][left.value=2]",
    message: 'No local back-off: use backoffDelayMs (src/shared/domain/backoff.ts) with this retry\'s timing.'
  }
]
// One record ↔ row mapping (src/main/store/repos/row-map.ts): a repository names how each field is
// stored, and the helper renames the bookkeeping fields (_id ↔ id, __v ↔ v) and camelCase ones.
const NO_HAND_ROW_MAP = [
  ['_id', 'id'],
  ['id', '_id'],
  ['__v', 'v'],
  ['v', '__v']
].map(([key, from]) => ({
  selector: `Property[key.name='${key}'][value.type='MemberExpression'][value.property.name='${from}']`,
  message: 'No hand-written row mapper: map a record to its row and back with rowMap (src/main/store/repos/row-map.ts).'
}))
const CORE_PATTERNS = [
  { group: HTTP_AND_ELECTRON, message: 'The core stays free of Electron and HTTP: only the faces import them.' },
  { group: FACES, message: 'The core never imports a face.' }
]

// The floors of the core (docs/architecture.md "Floors"), top first: a floor imports the floors below it,
// never one above. The faces and operations/ stand above all of them (CORE_PATTERNS keeps them out).
// Each floor lists its files and the import paths that name it; files of a floor may not import
// the paths of any floor above theirs.
const FLOORS = [
  { name: 'the core\'s wiring', files: ['src/main/core.ts', 'src/main/wiring/**/*.ts'], paths: ['**/core', '**/wiring/**'] },
  { name: 'the assistant', files: ['src/main/assistant/**/*.ts'], paths: ['**/assistant/**'] },
  { name: 'the bot and the webhooks', files: ['src/main/bot/**/*.ts', 'src/main/webhooks/**/*.ts'], paths: ['**/bot/**', '**/webhooks/**'] },
  { name: 'the services', files: ['src/main/services/**/*.ts'], paths: ['**/services/**'] },
  { name: 'the channels', files: ['src/main/channel/**/*.ts'], paths: ['**/channel/**'] },
  { name: 'the store', files: ['src/main/store/**/*.ts'], paths: ['**/store/**'] },
  // Pure rules and the pieces everything stands on: AppError, schema validation, media checks.
  { name: 'the ground floor', files: ['src/main/domain/**/*.ts', 'src/main/media/**/*.ts', 'src/main/{clock,errors,ids,logger,lru,once,validation,version}.ts'], paths: [] }
]
/** The patterns a floor's files may not import: every floor above it. */
const upwardOf = (i) =>
  FLOORS.slice(0, i).map((above) => ({ group: above.paths, message: `No import runs back up a floor: ${FLOORS[i].name} may not import ${above.name} (docs/architecture.md "Floors").` }))

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
    files: ['src/main/**/*.ts'],
    ignores: SQLITE_THREAD_FILES,
    rules: {
      'no-restricted-imports': ['error', { paths: [NO_SQLITE], patterns: [THREAD_ONLY] }]
    }
  },
  {
    files: ['src/main/{assistant,bot,channel,domain,services,store,webhooks,wiring,media,operations}/**/*.ts', 'src/main/{core,clock,config,errors,events,ids,logger,lru,once,storage-app-error,validation,version}.ts'],
    ignores: SQLITE_THREAD_FILES,
    rules: {
      'no-restricted-imports': ['error', { paths: [NO_SQLITE], patterns: [THREAD_ONLY, ...CORE_PATTERNS] }]
    }
  },
  // The floors (after the two blocks above, whose restrictions each floor's rule repeats: the last
  // block that sets a rule for a file is the one that counts).
  ...FLOORS.map((floor, i) => ({
    files: floor.files,
    ignores: SQLITE_THREAD_FILES,
    rules: {
      'no-restricted-imports': ['error', { paths: [NO_SQLITE], patterns: [THREAD_ONLY, ...CORE_PATTERNS, ...upwardOf(i)] }]
    }
  })),
  {
    // The SQLite thread's own modules: node:sqlite allowed, the core's boundaries and the store's floor kept.
    files: SQLITE_THREAD_FILES,
    rules: {
      'no-restricted-imports': ['error', { patterns: [...CORE_PATTERNS, ...upwardOf(FLOORS.findIndex((f) => f.name === 'the store'))] }]
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
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/shared/domain/backoff.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...NO_LOCAL_BACKOFF]
    }
  },
  {
    files: ['src/main/store/repos/**/*.ts'],
    ignores: ['src/main/store/repos/row-map.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...NO_LOCAL_BACKOFF, ...NO_HAND_ROW_MAP]
    }
  }
)
