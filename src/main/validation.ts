/**
 * Schema validation for the API: Ajv with the shared custom formats, and the translation of Ajv's
 * errors into docs/design.md §4 details (`[{field, problem}]`, dotted paths, plain-English problems).
 */
import { Ajv, type ErrorObject } from 'ajv'
import addFormats from 'ajv-formats'
import { CUSTOM_FORMATS, FORMAT_PROBLEMS } from '../shared/formats'
import { AppError, type FieldProblem } from './errors'

// ajv-formats is CommonJS; its ESM default import is typed loosely.
const addStandardFormats = addFormats.default as (ajv: Ajv, formats: string[]) => Ajv

/** An Ajv instance; `coerce` turns query-string text into numbers/booleans (never for bodies). */
export function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: true,
    strict: false
  })
  addStandardFormats(ajv, ['email', 'uri', 'date', 'date-time'])
  for (const [name, fn] of Object.entries(CUSTOM_FORMATS)) ajv.addFormat(name, fn)
  return ajv
}

/** A validator that compiles its schema at its first call; `errors` as Ajv's own validators carry them. */
export type LazyValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null }

/**
 * `ajv.compile(schema)` deferred to the first validation. Compiling the validators of every route and
 * contract method took ~300 ms of each start (docs/benchmarks.md "Start time and idle memory"); most routes of a given run are never
 * called, and a compile on first use costs that request about a millisecond once.
 */
export function lazyValidator(ajv: Ajv, schema: object): LazyValidator {
  let compiled: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined
  const validate: LazyValidator = (data) => {
    compiled ??= ajv.compile(schema)
    const ok = compiled(data)
    validate.errors = compiled.errors
    return ok
  }
  return validate
}

/** Turns Ajv errors into docs/design.md §4 details: `[{field, problem}]` with dotted field paths. */
/** The fields of an Ajv error this reads (Fastify's validation errors have the same ones). */
export type ValidationProblem = Pick<ErrorObject, 'keyword' | 'instancePath' | 'message'> & { params: Record<string, unknown> }

export function ajvProblems(errors: readonly ValidationProblem[], prefix = ''): FieldProblem[] {
  const out: FieldProblem[] = []
  const seen = new Set<string>()
  for (const e of errors) {
    // Union branches repeat one failure several ways; the first is the clearest.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue
    const path = e.instancePath.split('/').filter(Boolean).join('.')
    let field = path
    let problem = e.message ?? 'is invalid'
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty
      field = path ? `${path}.${missing}` : missing
      problem = 'is required'
    } else if (e.keyword === 'additionalProperties') {
      const extra = (e.params as { additionalProperty: string }).additionalProperty
      field = path ? `${path}.${extra}` : extra
      problem = 'is not an allowed field'
    } else if (e.keyword === 'format') {
      const format = (e.params as { format: string }).format
      problem = FORMAT_PROBLEMS[format] ?? `must be a valid ${format}`
    } else if (e.keyword === 'type') {
      problem = `must be ${(e.params as { type: string }).type}`
    } else if (e.keyword === 'const' || e.keyword === 'enum') {
      const allowed = (e.params as { allowedValue?: unknown; allowedValues?: unknown[] }).allowedValues ?? [
        (e.params as { allowedValue?: unknown }).allowedValue
      ]
      problem = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`
    }
    field = prefix + (field || '(body)')
    const key = `${field}\u0000${e.keyword === 'const' ? 'const' : problem}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ field, problem })
  }
  // A field that failed a union shows one line, the first.
  const byField = new Map<string, FieldProblem>()
  for (const p of out) if (!byField.has(p.field)) byField.set(p.field, p)
  return [...byField.values()]
}

export function validationError(problems: FieldProblem[]): AppError {
  const summary = problems.map((p) => `${p.field} ${p.problem}`).join('; ')
  return new AppError('VALIDATION_ERROR', `Invalid request: ${summary}`, problems)
}


/** Validates JSON bodies and multipart fields: no coercion. */
export const strictAjv = makeAjv(false)
/** Validates query strings and path params: text coerced to the declared types. */
export const coercingAjv = makeAjv(true)
