import type * as Yaml from 'yaml';
import { lazy } from '@hearth/plugin-api';

/** The yaml package (label templates, issue templates), loaded by the first document read rather than at start. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const yaml = lazy(() => require('yaml') as typeof Yaml);
