/**
 * Packaging (electron-builder 26; loaded through jiti). Which format is built where:
 *
 * | format | built by | where |
 * | --- | --- | --- |
 * | .deb, .rpm | `npm run dist:linux` (electron-builder `--dir`, then electron-installer-debian / -redhat) | any Linux with dpkg-deb and rpmbuild, offline |
 * | AppImage | electron-builder (`--linux AppImage`) | Linux with access to GitHub (its runtime comes from there) |
 * | NSIS .exe | electron-builder (`--win nsis`) | Windows (the release workflow) |
 * | .dmg + .zip, x64 and arm64 | electron-builder (`--mac`) | macOS (the release workflow); the .zip is what updates download |
 *
 * A TypeScript file rather than YAML because the update feed comes from the environment when it is set
 * (`CHATAPP_UPDATE_URL`, checked by the same rule as the app's) and a YAML `${env.…}` macro fails
 * packaging when the variable is unset. Icons live in resources/ (buildResources); the tray and window
 * icons are copied beside the app as extra resources (process.resourcesPath).
 */
import type { Configuration } from 'electron-builder'
import { GITHUB_REPOSITORY, checkFeedUrl, githubLatestDownloadUrl } from './src/main/electron/update-feed'
import { ELECTRON_HEAP_ARGS } from './scripts/heap-flags.mjs'

const { owner, repo } = GITHUB_REPOSITORY
const feed = process.env.CHATAPP_UPDATE_URL?.trim()

const config: Configuration = {
  appId: 'app.chatapp.desk',
  productName: 'Chatapp Desk',
  copyright: 'Copyright © 2026 Chatapp Desk',
  directories: { buildResources: 'resources', output: 'dist' },
  files: [
    'out/**/*',
    'package.json',
    '!**/*.map',
    // Type declarations that runtime packages depend on (e.g. @types/node via baileys' deps) never run.
    '!**/node_modules/@types/**'
  ],
  extraResources: [{ from: 'resources/', to: '.', filter: ['icon.png', 'tray.png', 'tray@2x.png'] }],
  // sharp loads a native library per OS from @img/*; it must stay outside the asar archive.
  asarUnpack: ['**/node_modules/sharp/**/*', '**/node_modules/@img/**/*'],
  // No dependency compiles native code against Electron: sharp ships N-API builds per OS, which
  // `npm ci` on each runner installs. A rebuild would only try to download Electron's headers.
  npmRebuild: false,
  icon: 'resources/icon.png',
  // No spaces: GitHub renames uploaded assets with spaces, and latest*.yml would name missing files.
  artifactName: '${name}-${version}-${os}-${arch}.${ext}',
  // "What's new" of each release: latest*.yml carries it, the About section shows it.
  releaseInfo: { releaseNotesFile: 'docs/release-notes.md' },
  win: {
    target: [{ target: 'nsis', arch: ['x64'] }]
  },
  nsis: {
    oneClick: false,
    perMachine: false,
    allowToChangeInstallationDirectory: true,
    deleteAppDataOnUninstall: false,
    createDesktopShortcut: true
  },
  mac: {
    category: 'public.app-category.business',
    hardenedRuntime: true,
    // Squirrel.Mac (the updater on macOS) installs from the .zip; the .dmg is for the first install.
    target: [
      { target: 'dmg', arch: ['x64', 'arm64'] },
      { target: 'zip', arch: ['x64', 'arm64'] }
    ]
  },
  dmg: { writeUpdateInfo: false },
  linux: {
    category: 'Network',
    synopsis: 'WhatsApp chat-bot desk',
    maintainer: 'Chatapp Desk <maintainers@chatapp.invalid>',
    executableName: 'chatapp-desk',
    // The AppImage's desktop entry starts the main process with its V8 heap settings (scripts/heap-flags.mjs).
    executableArgs: [...ELECTRON_HEAP_ARGS],
    // .deb and .rpm come from scripts/dist-linux.mjs (electron-builder's own need fpm from GitHub).
    target: [{ target: 'AppImage', arch: ['x64'] }]
  },
  // The first entry is what installed apps read (resources/app-update.yml): the generic feed, by
  // default the GitHub releases below. The github entry is where `--publish always` uploads; owner and
  // repo are explicit, so packaging never depends on detecting a repository.
  publish: [
    { provider: 'generic', url: feed ? checkFeedUrl(feed, process.env.CHATAPP_UPDATE_ALLOW_HTTP_LOOPBACK === '1') : githubLatestDownloadUrl(owner, repo) },
    { provider: 'github', owner, repo, releaseType: 'draft' }
  ]
}

export default config
