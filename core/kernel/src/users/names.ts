import { ApiError } from '@hearth/plugin-api';

/** The bot account of the actions facility; no one may register it. */
export const ACTIONS_BOT_NAME = 'hearth-actions';

/** Gitea's reserved user names (they collide with site routes), plus our own bot and Gitea's. */
const RESERVED_NAMES = new Set([
  '.',
  '..',
  '.well-known',
  'admin',
  'api',
  'assets',
  'attachments',
  'avatar',
  'avatars',
  'captcha',
  'commits',
  'debug',
  'error',
  'explore',
  'favicon.ico',
  'ghost',
  'issues',
  'login',
  'manifest.json',
  'metrics',
  'milestones',
  'new',
  'notifications',
  'org',
  'pulls',
  'raw',
  'repo',
  'repo-avatars',
  'robots.txt',
  'search',
  'serviceworker.js',
  'ssh_info',
  'swagger.v1.json',
  'user',
  'v2',
  'gitea-actions',
  ACTIONS_BOT_NAME,
]);
/** Suffixes that would shadow per-user feeds and key files. */
const RESERVED_SUFFIXES = ['.keys', '.gpg', '.rss', '.atom', '.png'];

const VALID_CHARS = /^[\da-zA-Z][\w.-]*$/;
const BAD_SEQUENCE = /[-._]{2,}|[-._]$/;
export const MAX_NAME_LENGTH = 40;

/** Refuse a name a user or organization cannot take, with Gitea's 422 and a message that says why. */
export function assertValidUserName(name: string): void {
  const lower = name.toLowerCase();
  if (RESERVED_NAMES.has(lower)) throw ApiError.unprocessable(`name is reserved [name: ${name}]`);
  const suffix = RESERVED_SUFFIXES.find((s) => lower.endsWith(s));
  if (suffix) throw ApiError.unprocessable(`name pattern is not allowed [pattern: *${suffix}]`);
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) {
    throw ApiError.unprocessable(`name must be 1 to ${MAX_NAME_LENGTH} characters [name: ${name}]`);
  }
  if (!VALID_CHARS.test(name) || BAD_SEQUENCE.test(name)) {
    throw ApiError.unprocessable(
      `name is invalid [name: ${name}]: use letters, digits, '-', '_' and '.', start with a ` +
        `letter or digit, and do not end with or repeat '-', '_' or '.'`,
    );
  }
}

const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>"]+$/;

export function assertValidEmail(email: string): void {
  if (email.length > 255 || !EMAIL.test(email)) throw ApiError.unprocessable(`e-mail invalid [email: ${email}]`);
}
