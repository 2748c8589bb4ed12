/** The app version, from package.json (inlined by the bundler in app builds). */
import pkg from '../../package.json'

export const APP_VERSION: string = pkg.version
export const PRODUCT_NAME: string = pkg.productName
