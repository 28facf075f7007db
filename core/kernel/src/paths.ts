import path from 'node:path';

/** The repository root: `config/` and `schemas/` live there (src/ and dist/ are both three levels down). */
export const HEARTH_HOME = path.resolve(__dirname, '../../..');
export const SCHEMAS_DIR = path.join(HEARTH_HOME, 'schemas');
export const DEFAULT_CONFIG_FILE = path.join(HEARTH_HOME, 'config', 'default.json');
