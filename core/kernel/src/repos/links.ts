import type { HearthConfig } from '../config/types';
import type { UserInfo } from '@hearth/plugin-api';
import type { UserRow } from '../users/models';

/** Where a repository's API (`…/api/v1/repos/o/r`) and web pages (`…/o/r`) live. Read per request: ROOT_URL may be set at listen. */
export interface RepoLinks {
  api: string;
  html: string;
}

export function repoLinks(config: HearthConfig, ownerName: string, repoName: string): RepoLinks {
  const path = `${encodeURIComponent(ownerName)}/${encodeURIComponent(repoName)}`;
  return { api: `${config.server.ROOT_URL}api/v1/repos/${path}`, html: `${config.server.ROOT_URL}${path}` };
}

export { escapeSegments } from '@hearth/plugin-api';

/** A git author, committer or tagger. */
export interface Person {
  name: string;
  email: string;
}

/** What git takes as an ident part: no angle brackets or control characters (Gitea's gitSafeName). */
export function safeIdent(value: string): string {
  return value.replace(/[<>\x00-\x1f\x7f]/g, '').trim();
}

/** The acting user as git identity: full name (else login), and the no-reply address when they keep their email private. */
export function userIdentity(user: UserInfo, row: UserRow | undefined, noReplyAddress: string): Person {
  const email = row?.keep_email_private ? `${user.lowerName}@${noReplyAddress}` : user.email;
  return { name: safeIdent(user.fullName || user.name) || user.name, email: safeIdent(email) };
}
