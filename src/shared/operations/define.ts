/**
 * One operation, defined once (docs/architecture.md "Operations"): its input and output schemas, and
 * the faces it has — an HTTP route (method, path, success message, where each input field comes
 * from) and/or a UI contract method (the same name over IPC and `/rpc`). The HTTP routes, the UI
 * contract and the OpenAPI document are generated from these definitions; the service call of each is
 * its runner (src/main/operations/runners.ts), checked by the compiler to exist for every operation.
 *
 * Pure data (TypeBox schemas and small pure mappings): the renderer imports it for its types.
 */
import Type, { type Static, type TObject, type TProperties, type TSchema } from 'typebox'
import type { AccountReach, OperationPermission } from '../access'

/** Who may call: anyone (`public`), the account (bearer token), or an instance (bearer + its credentials). */
export type Scope = 'public' | 'account' | 'instance'

/** How the HTTP face answers a result that is not the JSON envelope. Implemented by src/main/api/responders.ts. */
export type Responder = 'qrImage' | 'attachmentFile' | 'mediaFile' | 'csvWhenAsked' | 'paged' | 'noContent' | 'download' | 'startSession' | 'endSession'

export interface HttpFacet<R> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Fastify path; `:name` segments are path params. */
  path: string
  /** The success envelope's `message` (docs/api-seed.md texts). */
  message: string
  /** Path params to input fields: `{ intent_id: 'id' }`. */
  params?: Record<string, string>
  /** Input fields read from the query string (coerced); the others come from the body. */
  query?: string[]
  /** The body is multipart: its text fields are the body fields, its `file` part becomes input `file`. */
  multipart?: { file: 'required' | 'none'; alsoJson?: boolean }
  /** The body is a file sent as `application/octet-stream` (streamed to a temp file): it becomes input `file`. */
  rawBody?: boolean
  /** The answer's `data` from the result, when the wire shape differs (the seed's shapes). */
  wire?: (result: R) => unknown
  /** The answer's `data` schema (OpenAPI) when `wire` changes the shape. */
  data?: TSchema
  /** A non-JSON answer (an image, a file, CSV). */
  respond?: Responder
  /** Error answers worth documenting besides 400/401. */
  errors?: Record<number, string>
  deprecated?: boolean
  /** Also served at these paths (deprecated aliases). */
  aliases?: string[]
  /**
   * Sent without session_id and access_token (as the seed's own samples do), the request applies to
   * the account's only instance; with several, 400 asks for them (docs/design.md §17).
   */
  soleInstanceWithoutCredentials?: boolean
  /** A body that is fine to omit (bodiless POSTs and GETs). */
  bodyOptional?: boolean
  /** Largest JSON body (bytes) when it differs from the app's limit. */
  bodyLimit?: 'file'
}

export interface RpcFacet<R> {
  /** The contract output from the result, when it differs. */
  output?: (result: R) => unknown
}

export interface OperationDef<I extends TObject = TObject, R = unknown, RO = R> {
  summary: string
  /**
   * What a successful run reads as in the audit log, past tense ("Revoked an API key"): every
   * operation the log records (src/main/operations/invoke.ts `audited`) has one.
   */
  audit?: string
  description?: string
  tags: string[]
  scope: Scope
  /**
   * What the caller must hold (src/shared/access.ts): checked on the server for every call, whatever
   * the face; an instance-scoped operation also needs the caller to reach that instance.
   */
  permission: OperationPermission
  /**
   * An `account`-scoped operation's reach, for callers limited to some instances (src/shared/access.ts
   * {@link AccountReach}); unset: `account` — it reaches the whole account and needs a caller without
   * an instance limit. Instance-scoped operations reach their instance.
   */
  reach?: AccountReach
  /**
   * The input field naming the one instance an `account`-scoped operation acts on (`instances.delete`'s
   * `instanceId`, the inbox's `instance_id` filter): the caller must reach it, else 404 as for an unknown one.
   */
  instanceField?: string
  /**
   * What the credential this operation makes or changes will hold (an API key's scopes, a staff
   * role's permissions, and their instances; `instanceIds` undefined: unchanged): never more than the
   * caller holds itself (src/shared/access.ts `mayGrant`), checked with the permission.
   */
  grants?: (input: Record<string, unknown>) => { permissions: readonly string[]; instanceIds?: readonly string[] | null }
  /** The operation's input: body, query and path fields (never the instance credentials or instanceId). */
  input: I
  /** The result's schema (OpenAPI; the contract's output unless the RPC facet maps it). */
  output: TSchema
  http?: HttpFacet<R>
  /** A UI contract method of the same name (IPC and /rpc); `output` maps the result when it differs. */
  rpc?: RpcFacet<R> | true
  /** Phantom: the runner's result type. */
  readonly _result?: R
  /** Phantom: the contract method's output type. */
  readonly _rpcOutput?: RO
}

/**
 * Defines an operation whose runner answers `R` and whose contract method answers `RO` (default `R`).
 * The input schema's type is inferred. The table's keys are the operation names.
 */
export function op<R, RO = R>() {
  return <I extends TObject, S extends Scope, X extends RpcFacet<R> | true | undefined = undefined>(
    def: Omit<OperationDef<I, R, RO>, '_result' | '_rpcOutput' | 'scope' | 'rpc'> & { scope: S; rpc?: X }
  ): OperationDef<I, R, RO> & { scope: S; rpc: X } => def as OperationDef<I, R, RO> & { scope: S; rpc: X }
}

/** The input type of an operation. */
export type InputOf<D> = D extends OperationDef<infer I, unknown, unknown> ? Static<I> : never
/** The runner's result type of an operation. */
export type ResultOf<D> = D extends OperationDef<TObject, infer R, unknown> ? R : never
/** The contract output type of an operation. */
export type RpcOutputOf<D> = D extends OperationDef<TObject, unknown, infer RO> ? RO : never

/** The properties of an operation schema without the instance credentials (the body schemas carry them). */
export function withoutCredentials<P extends TProperties>(schema: TObject<P>): TObject<Omit<P, 'session_id' | 'access_token'>> {
  const { session_id: _s, access_token: _a, ...rest } = schema.properties as P & { session_id?: unknown; access_token?: unknown }
  return Type.Object(rest)
}
