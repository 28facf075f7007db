import semver from 'semver';
import { ApiError } from '@hearth/plugin-api';

/** SE-0292 §3.6.1: alphanumerics and single inner hyphens, at most 39 characters. */
export const SCOPE = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;
/** SE-0292 §3.6.2: alphanumerics with single inner hyphens or underscores, at most 100 characters. */
export const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9]|[-_](?=[A-Za-z0-9])){0,99}$/;
const MAX_VERSION_LENGTH = 255;

/** A package identity as stored: the kernel's package name is `scope.name` in the case it was first published. */
export interface PackageIdentity {
  scope: string;
  name: string;
  /** `scope.name`, the package name in the kernel's tables (matched case-insensitively there). */
  id: string;
}

export function identity(scope: string, name: string): PackageIdentity {
  if (!SCOPE.test(scope))
    throw ApiError.badRequest(`invalid package scope "${scope}": letters, digits and single inner hyphens, at most 39 characters`);
  if (!NAME.test(name))
    throw ApiError.badRequest(`invalid package name "${name}": letters, digits and single inner '-' or '_', at most 100 characters`);
  return { scope, name, id: `${scope}.${name}` };
}

/** A release version: strict SemVer 2.0 (no `v` prefix, no loose forms), as SwiftPM resolves it. */
export function releaseVersion(version: string): string {
  if (version.length > MAX_VERSION_LENGTH || semver.valid(version) !== version) {
    throw ApiError.badRequest(`invalid version "${version.slice(0, 64)}": a SemVer 2.0 version such as 1.2.3 or 1.2.3-beta.1 is required`);
  }
  return version;
}

/** Sort versions by SemVer precedence, highest first. */
export function byPrecedenceDescending<T extends { version: string }>(items: T[]): T[] {
  return [...items].sort((a, b) => semver.rcompare(a.version, b.version));
}

/** The URL form `identifiers?url=` compares: case-insensitive, without a trailing slash or `.git`. */
export function normalizeRepositoryUrl(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}
