/** Wiring of who may use the app: the local account, the app's settings, the people at the desk. */
import { AccountService } from '../services/account-service'
import { AppSettingsService } from '../services/app-settings-service'
import { People } from '../services/people'
import { LoginCodeFile } from '../store/login-code-file'
import type { Wiring } from './steps'

/** Makes sure the account exists (its token, its login code file). Throws the storage's errors. */
export async function wirePeople(w: Wiring): Promise<{ account: AccountService; appSettings: AppSettingsService; people: People }> {
  const { repos, clock, events, opts } = w
  const account = new AccountService(repos.account, clock, opts.apiToken, events, LoginCodeFile.in(opts.dataDir))
  await account.ensure()
  const appSettings = new AppSettingsService(repos.appSettings)
  const people = new People({ repos, account, clock, events, scryptLog2n: opts.passwordCostLog2 })
  return { account, appSettings, people }
}
