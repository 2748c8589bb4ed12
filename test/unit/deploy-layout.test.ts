/**
 * The deployment files (docs/deploy.md) say what the product accepts: Docker is not available where
 * the project is built, so `compose.yaml`, `Dockerfile` and `deploy/Caddyfile` are checked here
 * against the server's own configuration reader instead (the layout itself — workers on one
 * PostgreSQL — runs in test/api/workers.test.ts and forwarding.test.ts).
 */
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import yaml from 'js-yaml'
import { describe, expect, it } from 'vitest'
import { readServeConfig } from '../../src/main/config'

const root = fileURLToPath(new URL('../../', import.meta.url))
const read = (path: string) => readFileSync(root + path, 'utf8')

interface Service {
  build?: string
  image?: string
  environment?: Record<string, string>
  volumes?: string[]
}
const compose = yaml.load(read('compose.yaml')) as { services: Record<string, Service> }
const workers = Object.entries(compose.services).filter(([, s]) => s.build === '.')
/** compose's `${VAR}` and `${VAR:?message}` with a value for each. */
const substitute = (value: string) => value.replace(/\$\{(\w+)(:\?[^}]*)?\}/g, (_m, name: string) => ({ POSTGRES_PASSWORD: 'secret-pw', CHATAPP_API_TOKEN: 'a-token-of-20-chars!' })[name] ?? '')
/** The environment a worker's container runs with: the Dockerfile's ENV, then the service's. */
function containerEnv(service: Service): NodeJS.ProcessEnv {
  const dockerEnv = Object.fromEntries([...read('Dockerfile').matchAll(/(CHATAPP_\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]))
  return { ...dockerEnv, ...Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, substitute(String(v))])) }
}

describe('compose.yaml: PostgreSQL, three workers and a proxy', () => {
  it('has three workers built from the Dockerfile, each with its own data volume', () => {
    expect(workers.map(([name]) => name)).toEqual(['worker1', 'worker2', 'worker3'])
    const volumes = workers.map(([, s]) => s.volumes?.[0]?.split(':')[0])
    expect(new Set(volumes).size).toBe(3)
    expect(compose.services.postgres?.image).toMatch(/^postgres:1[4-9]/)
  })

  it('gives every worker a configuration the server accepts: the same database and token, its own id and URL', () => {
    const configs = workers.map(([name, s]) => ({ name, config: readServeConfig(containerEnv(s)) }))
    for (const { name, config } of configs) {
      expect(config.databaseUrl).toBe('postgres://chatapp:secret-pw@postgres:5432/chatapp')
      expect(config.apiToken).toBe('a-token-of-20-chars!')
      expect(config.host).toBe('0.0.0.0')
      expect(config.dataDir).toBe('/data')
      expect(config.worker.id).toBe(name)
      expect(config.worker.url).toBe(`http://${name}:${config.port}`)
    }
  })

  it('mounts one media volume on every worker, where CHATAPP_MEDIA_DIR points', () => {
    const mounts = workers.map(([, s]) => {
      const dir = readServeConfig(containerEnv(s)).mediaDir
      return s.volumes?.find((v) => v.split(':')[1] === dir)?.split(':')[0]
    })
    expect(mounts).toEqual(['media', 'media', 'media'])
  })

  it('routes the proxy to every worker on the port it listens on, with the health check the server answers', () => {
    const caddy = read('deploy/Caddyfile')
    const port = readServeConfig(containerEnv(workers[0]![1])).port
    for (const [name] of workers) expect(caddy).toContain(`${name}:${port}`)
    expect(caddy).toMatch(/health_uri \/health/)
  })
})

describe('Dockerfile', () => {
  it('runs the headless server from the built bundle, as the node user, with SIGTERM reaching node', () => {
    const docker = read('Dockerfile')
    expect(docker).toMatch(/^FROM node:24/m)
    expect(docker).toMatch(/RUN npm run build/)
    expect(docker).toMatch(/^USER node$/m)
    expect(docker).toMatch(/^CMD \["node", "scripts\/serve\.mjs"\]$/m)
    expect(existsSync(root + 'scripts/serve.mjs')).toBe(true)
  })
})
