import { ApiError } from '@hearth/plugin-api';

/** The media types SE-0292 §3.5 defines after `application/vnd.swift.registry.v1+`. */
export type RegistryMediaType = 'json' | 'zip' | 'swift';
const KNOWN: readonly string[] = ['json', 'zip', 'swift'];
const REGISTRY_TYPE = /^application\/vnd\.swift\.registry(?:\.v([^+;\s]*))?(?:\+([^;\s]*))?$/i;

/**
 * Check a request's `Accept` header against the media type a route serves (SE-0292 §3.5).
 * No registry media type in Accept (absent, `*\/*`, `application/json`): served as v1. An unknown
 * or invalid API version → 400; a valid but unsupported one (v2…) → 415; another registry media
 * type than the route's (`+zip` on the metadata route) → 415; an unknown media type → 400.
 */
export function negotiate(accept: string | undefined, served: RegistryMediaType): void {
  if (!accept) return;
  for (const raw of accept.split(',')) {
    const type = raw.split(';')[0].trim();
    const m = REGISTRY_TYPE.exec(type);
    if (!m) continue;
    const [, version, media] = m;
    if (version !== undefined && !/^\d+$/.test(version)) throw new ApiError(400, 'invalid API version');
    if (version !== undefined && version !== '1') throw new ApiError(415, 'unsupported API version');
    if (media !== undefined && !KNOWN.includes(media.toLowerCase())) throw new ApiError(400, `unknown media type "${media}"`);
    // Without a media type suffix the route's own type is meant (the spec's identifiers example sends bare `.v1`).
    if (media !== undefined && media.toLowerCase() !== served) {
      throw new ApiError(415, `this resource is served as application/vnd.swift.registry.v1+${served}, not +${media}`);
    }
    return;
  }
}
