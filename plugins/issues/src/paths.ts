import path from 'node:path';

/** The plugin's data files; src/ and dist/ are both one level below the package. */
const PACKAGE_DIR = path.resolve(__dirname, '..');

/** JSON Schemas of the label templates and of the milestone interchange document. */
export const SCHEMAS_DIR = path.join(PACKAGE_DIR, 'schemas');
/** The shipped label sets. */
export const SHIPPED_LABEL_TEMPLATES_DIR = path.join(PACKAGE_DIR, 'templates', 'label');
