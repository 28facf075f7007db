import type { HearthConfig } from './types';

/** Configuration keys plugins never see: credentials and keys of the kernel's own services. */
const SECRET_KEYS: Record<string, readonly string[]> = {
  security: ['SECRET_KEY'],
  storage: ['MINIO_ACCESS_KEY_ID', 'MINIO_SECRET_ACCESS_KEY'],
  metrics: ['TOKEN'],
  database: ['URL'],
};

/**
 * The configuration as plugins may read it (`ctx.forge.raw`): the secret keys left out. Sections
 * without secrets are the live objects, so values the kernel settles later (ROOT_URL once the
 * port is known) show through.
 */
export function withoutSecrets(config: HearthConfig): Readonly<Record<string, any>> {
  const copy: Record<string, any> = { ...config };
  for (const [section, keys] of Object.entries(SECRET_KEYS)) {
    if (!copy[section]) continue;
    copy[section] = Object.fromEntries(Object.entries(copy[section] as Record<string, unknown>).filter(([key]) => !keys.includes(key)));
  }
  return Object.freeze(copy);
}
