import packageJson from '../../package.json' with { type: 'json' }

/** This package's name and version, as published (the bundle carries them from package.json). */
export const PACKAGE = { name: packageJson.name, version: packageJson.version }

/** `olympe-deploy-actions/1.2.3`: how our HTTP requests introduce themselves. */
export const USER_AGENT = `${PACKAGE.name}/${PACKAGE.version}`
