import type { HearthConfig } from '../config/types';
import type { RepoUnit } from '../repos/models';
import type { LoadedPlugin } from './loader';

/**
 * The repository units Hearth's own feature plugins serve. A disabled plugin is never loaded, so
 * its manifest's `units` cannot be read: this table says which units go dark when an operator
 * turns a shipped feature off (`plugins.<name>.enabled: false`).
 */
const SHIPPED_FEATURE_UNITS: Readonly<Record<string, readonly RepoUnit[]>> = {
  issues: ['issues'],
  pulls: ['pulls'],
  wiki: ['wiki'],
  releases: ['releases'],
};

/**
 * Units no enabled plugin serves: those of shipped features switched off in config, unless an
 * enabled plugin declares them in its manifest's `units` (a replacement).
 */
export function unservedUnits(config: HearthConfig, loaded: readonly LoadedPlugin[]): Set<RepoUnit> {
  const served = new Set<string>(loaded.flatMap(({ plugin }) => plugin.units ?? []));
  const off = new Set<RepoUnit>();
  for (const [name, units] of Object.entries(SHIPPED_FEATURE_UNITS)) {
    if (config.plugins[name]?.enabled !== false) continue;
    for (const unit of units) if (!served.has(unit)) off.add(unit);
  }
  return off;
}
