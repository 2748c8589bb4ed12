/**
 * The UI contract's face (docs/design.md §12), generated from the operation table like the HTTP face:
 * each method runs its operation's runner (src/main/operations/runners.ts) on the instance named by
 * `instanceId`, and maps the result with the operation's `rpc.output` when the UI wants another
 * shape. Both transports — Electron IPC and the headless server's `/rpc` — call these handlers through
 * {@link dispatch}, which validates the input against the contract's schema first.
 *
 * Errors are the services' AppErrors (docs/design.md §4 codes); transports turn them into
 * {@link ContractErrorShape}s.
 */
import type { Core } from '../core'
import { AppError, invalid } from '../errors'
import { storageAppError } from '../storage-app-error'
import { strictAjv, ajvProblems, lazyValidator, validationError } from '../validation'
import type { AppFacts, OperationContext } from '../operations/runners'
import { authorizePermission, invoke } from '../operations/invoke'
import type { Stored } from '../store/repos'
import type { Instance } from '../../shared/schemas/records'
import { OPERATIONS } from '../../shared/operations/table'
import type { RpcFacet } from '../../shared/operations/define'
import {
  CONTRACT_METHODS,
  contractInputSchema,
  type ContractErrorShape,
  type ContractHandlers,
  type ContractMethod,
  type ContractResult,
  type CallOrigin
} from '../../shared/contract'

/** What `app.info` answers besides the version. */
export type HandlerOptions = AppFacts

/** Builds the contract's handlers over a running core. */
export function createHandlers(core: Core, app: HandlerOptions): ContractHandlers {
  // The UI is a person at the desk: its sends pause the bot for that chat (hand-off).
  const ctx: OperationContext = { core, app, face: 'desk' }
  const handlerOf = <M extends ContractMethod>(method: M): ContractHandlers[M] => {
    const def = OPERATIONS[method]
    const facet = def.rpc as RpcFacet<unknown> | true
    const output = facet === true ? undefined : facet.output
    const handler = async (input: Record<string, unknown>, origin?: CallOrigin): Promise<unknown> => {
      let inst: Stored<Instance> | undefined
      let rest = input
      if (def.scope === 'instance') {
        const { instanceId, ...others } = input
        inst = core.instances.get(instanceId as string)
        // `instances.logout` checks the instance it names against the one it runs on (HTTP path); same here.
        rest = method === 'instances.logout' ? { ...others, instanceId } : others
      }
      const result = await invoke(origin ? { ...ctx, ...origin } : ctx, method, rest, inst)
      return output ? output(result) : result
    }
    // The table types each method; this generic builder cannot see the pairing, the compiler checks it at the call sites.
    return handler as ContractHandlers[M]
  }
  return Object.fromEntries(CONTRACT_METHODS.map((m) => [m, handlerOf(m)])) as ContractHandlers
}

const validators = new Map(CONTRACT_METHODS.map((m) => [m, lazyValidator(strictAjv, contractInputSchema(m))]))

/** The error shape of any thrown value; unexpected errors are logged and hidden. */
export function toErrorShape(err: unknown, log: (err: unknown) => void): ContractErrorShape {
  if (err instanceof AppError) return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
  log(err)
  const storage = storageAppError(err)
  if (storage) return { code: storage.code, message: storage.message }
  return { code: 'INTERNAL', message: 'Internal error; see the app log.' }
}

/** No contract input is nested anywhere near this deep; deeper ones would only exhaust the stack. */
const MAX_INPUT_DEPTH = 64

/** Whether `value` has objects or arrays nested more than `max` levels (iterative: no recursion to overflow). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return true
    for (const child of Object.values(v)) stack.push([child, depth + 1])
  }
  return false
}

/** True when `method` names a contract operation. */
export function isContractMethod(method: string): method is ContractMethod {
  return validators.has(method as ContractMethod)
}

/**
 * Validates `input` against the method's schema and runs its handler for `origin`'s caller (the
 * desktop app's owner when none: IPC). Never throws: answers the
 * result envelope (NOT_FOUND for an unknown method, VALIDATION_ERROR for a bad input).
 */
export async function dispatch(handlers: ContractHandlers, method: string, input: unknown, log: (err: unknown) => void, origin?: CallOrigin): Promise<ContractResult<unknown>> {
  try {
    if (!isContractMethod(method)) throw new AppError('NOT_FOUND', `No operation ${method}`)
    // Before the input is looked at: a caller without the permission learns nothing more than 403.
    authorizePermission(origin?.caller, method)
    if (nestedDeeperThan(input, MAX_INPUT_DEPTH)) throw invalid('(input)', `is nested deeper than ${MAX_INPUT_DEPTH} levels`)
    const value = input === undefined || input === null ? {} : structuredClone(input)
    const validate = validators.get(method)!
    if (!validate(value)) throw validationError(ajvProblems(validate.errors ?? []))
    const handler = handlers[method] as (i: unknown, o?: CallOrigin) => Promise<unknown>
    return { ok: true, data: await handler(value, origin) }
  } catch (err) {
    return { ok: false, error: toErrorShape(err, log) }
  }
}
