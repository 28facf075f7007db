// eslint-disable-next-line @typescript-eslint/no-require-imports
const pkg = require('../package.json') as { version: string };

/** Hearth's own version. */
export const HEARTH_VERSION: string = pkg.version;

/**
 * The Gitea release whose API Hearth speaks. Clients (SDKs, Renovate, tea) gate features on
 * `/version`, so it reports this version with Hearth's own as semver build metadata.
 */
export const GITEA_COMPAT_VERSION = '1.20.6';

export const API_VERSION_STRING = `${GITEA_COMPAT_VERSION}+hearth-${HEARTH_VERSION}`;
