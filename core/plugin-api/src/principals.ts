import type { Principal, UserInfo } from './types';

/**
 * Who a check is about, as plain data: the forge's access rule takes a Principal, also when a
 * feature asks on behalf of someone who is not the caller (a notification's recipient, an assignee).
 */

/** A principal for a user acting as themselves (no token restrictions): to check what a recipient may read. @public */
export function principalOf(user: UserInfo): Principal {
  return { user, method: 'internal', scopes: null, publicOnly: false };
}

/** Whether the caller acts as a site administrator (an admin with a full credential; a public-only token is not enough). @public */
export function actsAsAdmin(principal: Principal | null): boolean {
  return Boolean(principal && principal.user.isAdmin && !principal.publicOnly);
}
