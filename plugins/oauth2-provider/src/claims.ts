import type { Principal, PluginContext, UserInfo } from '@hearth/plugin-api';

/**
 * The claims about `user` for the OpenID Connect scopes granted, as Gitea 1.20 sends them: `sub`
 * (the numeric user id) always; `profile` adds name, preferred_username, picture, website, locale;
 * `email` adds email and email_verified; `groups` the organizations and `org:team` names.
 */
export async function userClaims(ctx: Pick<PluginContext, 'api'>, user: UserInfo, oidcScopes: string[]): Promise<Record<string, unknown>> {
  const claims: Record<string, unknown> = { sub: String(user.id) };
  // As the user themself: the same answers /api/v1/user, /user/orgs and /user/teams give them.
  const self: Principal = { user, method: 'oauth2', scopes: null, publicOnly: false };
  if (oidcScopes.includes('profile')) {
    const { body } = await ctx.api.call(self, 'get', '/user');
    const profile = body as { full_name?: string; avatar_url?: string; website?: string; language?: string; html_url?: string };
    Object.assign(claims, {
      name: profile.full_name || user.name,
      preferred_username: user.name,
      profile: profile.html_url ?? '',
      picture: profile.avatar_url ?? '',
      website: profile.website ?? '',
      locale: profile.language ?? '',
    });
  }
  if (oidcScopes.includes('email')) Object.assign(claims, { email: user.email, email_verified: user.isActive });
  if (oidcScopes.includes('groups')) claims.groups = await groupsOf(ctx, self);
  return claims;
}

async function groupsOf(ctx: Pick<PluginContext, 'api'>, self: Principal): Promise<string[]> {
  const groups: string[] = [];
  for (let page = 1; ; page++) {
    const { body } = await ctx.api.call(self, 'get', '/user/orgs', { query: { page, limit: 50 } });
    const orgs = body as Array<{ username: string }>;
    groups.push(...orgs.map((o) => o.username));
    if (orgs.length < 50) break;
  }
  for (let page = 1; ; page++) {
    const { body } = await ctx.api.call(self, 'get', '/user/teams', { query: { page, limit: 50 } });
    const teams = body as Array<{ name: string; organization?: { username?: string } | null }>;
    groups.push(...teams.filter((t) => t.organization?.username).map((t) => `${t.organization!.username}:${t.name}`));
    if (teams.length < 50) break;
  }
  return groups;
}
