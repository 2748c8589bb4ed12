/**
 * Multipart routes declare their form in the OpenAPI document (fields + a binary `file`) but Fastify
 * must not validate the body itself: the parts are read as a stream and the fields are validated by
 * {@link readMultipart} with the same fields schema.
 */
import Type, { type TObject } from 'typebox'
import { coercingAjv } from '../validation'

/** The documented form: the fields plus `file` as binary. */
export function multipartBody(fields: TObject, withFile = true) {
  return Type.Object({
    ...fields.properties,
    ...(withFile ? { file: Type.String({ format: 'binary', description: 'The file.' }) } : {})
  })
}

/** Route option that skips Fastify's body validation (done on the parsed fields instead). */
export const skipBodyValidation = {
  validatorCompiler: ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    httpPart === 'body' ? () => true : coercingAjv.compile(schema)
}
