/**
 * Vitest global setup: ONE real PostgreSQL server for the whole run (./postgres-server.ts), its URL
 * handed to the test files (`inject('postgres')`); each test makes databases of its own on it
 * (test/helpers/postgres.ts). When the server cannot start (PostgreSQL not installed), the run goes
 * on and every test that needs it fails with the reason: never a silent skip.
 */
import type { TestProject } from 'vitest/node'
import { startPostgres, type PostgresServer } from './postgres-server'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test server's superuser URL, or why there is none. */
    postgres: { url: string } | { error: string }
  }
}

let server: PostgresServer | undefined

export async function setup(project: TestProject): Promise<void> {
  try {
    server = await startPostgres()
    project.provide('postgres', { url: server.url })
  } catch (err) {
    project.provide('postgres', { error: err instanceof Error ? err.message : String(err) })
  }
}

export async function teardown(): Promise<void> {
  await server?.stop()
}
