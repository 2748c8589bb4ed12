/**
 * Refuses to go on under a Node older than the baseline (README "Set-up": Node 24, for its built-in
 * `node:sqlite`), with one line that says so and exit code 1, instead of the stack of
 * `ERR_UNKNOWN_BUILTIN_MODULE: node:sqlite` that a server or a command would die with later.
 *
 * Imported first by every script under scripts/ (ES modules run their imports in order, so nothing of
 * the script runs before it), and run on its own before `npm start`, `npm run dev` and the other npm
 * scripts that do not go through one: `node scripts/require-node.mjs && …`.
 * Plain JavaScript that any Node since 12 parses, so an old one gets the message, not a syntax error.
 */
/** The oldest Node major the app runs on (package.json `engines`). */
export const MIN_NODE_MAJOR = 24

/**
 * What is wrong with running on Node `version` (`process.versions.node`, e.g. "20.20.2"): the line to
 * print, or null when it is new enough. Pure.
 */
export function nodeVersionProblem(version) {
  const major = Number(String(version).split('.')[0])
  if (Number.isInteger(major) && major >= MIN_NODE_MAJOR) return null
  return (
    `Chatapp Desk needs Node ${MIN_NODE_MAJOR} or newer (this is ${Number.isInteger(major) ? major : version}.x). ` +
    `Install Node ${MIN_NODE_MAJOR} LTS (https://nodejs.org/ or your package manager), then run npm ci again.`
  )
}

const problem = nodeVersionProblem(process.versions.node)
if (problem) {
  console.error(problem)
  process.exit(1)
}
