/**
 * The response envelope (docs/api-seed.md §2.1, docs/design.md §4) and its OpenAPI schemas.
 */
import Type, { type TSchema } from 'typebox'
import type { AppError } from '../errors'

/** A success answer. */
export function ok<T>(message: string, data: T): { status: true; message: string; data: T } {
  return { status: true, message, data }
}

/** An error answer. */
export function errorBody(err: AppError) {
  return {
    status: false as const,
    message: err.message,
    error: { code: err.code, ...(err.details ? { details: err.details } : {}) }
  }
}

export const ErrorEnvelope = Type.Object({
  status: Type.Literal(false),
  message: Type.String(),
  error: Type.Object({
    code: Type.String({ description: 'VALIDATION_ERROR, UNAUTHORIZED, NOT_FOUND, CONFLICT, PAYLOAD_TOO_LARGE, HEADERS_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, TOO_MANY_REQUESTS, INSUFFICIENT_STORAGE, SERVICE_UNAVAILABLE or INTERNAL' }),
    details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), problem: Type.String() })))
  })
})

/** OpenAPI responses for an operation: 200 with `data`, and the error envelope. */
export function responses(message: string, data: TSchema, extra: Record<number, string> = {}) {
  const out: Record<number, TSchema> = {
    200: Type.Object({ status: Type.Literal(true), message: Type.String({ examples: [message] }), data }, { description: message })
  }
  for (const [code, description] of Object.entries({ 400: 'Validation error', 401: 'Missing or wrong credentials', ...extra })) {
    out[Number(code)] = { ...ErrorEnvelope, description }
  }
  return out
}
