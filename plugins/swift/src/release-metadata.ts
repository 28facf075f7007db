import { ApiError } from '@hearth/plugin-api';

const MAX_REPOSITORY_URLS = 20;

/** Appendix B of the registry specification: the types of the known keys; other keys pass through. */
export function validateMetadata(value: unknown): Record<string, unknown> {
  const bad = (why: string) => ApiError.unprocessable(`invalid metadata: ${why}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not a JSON object');
  const m = value as Record<string, unknown>;
  const optionalString = (obj: Record<string, unknown>, key: string, where: string) => {
    if (obj[key] !== undefined && typeof obj[key] !== 'string') throw bad(`${where}${key} must be a string`);
  };
  for (const key of ['description', 'licenseURL', 'readmeURL', 'originalPublicationTime']) optionalString(m, key, '');
  if (typeof m.originalPublicationTime === 'string' && Number.isNaN(Date.parse(m.originalPublicationTime)))
    throw bad('originalPublicationTime must be an ISO 8601 date-time');
  if (m.author !== undefined) {
    if (typeof m.author !== 'object' || m.author === null || Array.isArray(m.author)) throw bad('author must be an object');
    const author = m.author as Record<string, unknown>;
    if (typeof author.name !== 'string') throw bad('author.name is required');
    for (const key of ['email', 'description', 'url']) optionalString(author, key, 'author.');
    if (author.organization !== undefined) {
      const org = author.organization as Record<string, unknown>;
      if (typeof org !== 'object' || org === null || typeof org.name !== 'string') throw bad('author.organization.name is required');
      for (const key of ['email', 'description', 'url']) optionalString(org, key, 'author.organization.');
    }
  }
  if (m.repositoryURLs !== undefined) {
    const urls = m.repositoryURLs;
    if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string' || !u.trim() || u.length > 2048))
      throw bad('repositoryURLs must be an array of URLs');
    if (urls.length > MAX_REPOSITORY_URLS) throw bad(`at most ${MAX_REPOSITORY_URLS} repositoryURLs`);
  }
  return m;
}
