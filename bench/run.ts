/**
 * `npm run bench`: every benchmark of the project, printed as tables. Speed targets are measured
 * here, not in timed tests.
 *
 * - match: keyword index vs a naive regex loop at 10, 1,000 and 10,000 intents (issue 3 target:
 *   p99 < 0.2 ms and ≥ 50× faster at 10,000 intents).
 */
import { runMatchBench } from './match-bench'

console.log('## Intent matching (KeywordIndex vs naive regex loop)\n')
runMatchBench()
