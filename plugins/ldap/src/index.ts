import { ApiError, definePlugin } from '@hearth/plugin-api';
import { groupMappingRef } from '@hearth/plugin-group-mapping';
import { LdapAuthenticator } from './authenticator';
import { Directory } from './directory';
import { ldapMigrations } from './migrations';
import { sourceCommands } from './source-commands';
import { LdapSourceStore, type LdapSourceFields } from './source-store';

export { canonicalDn, escapeFilterValue } from './directory';

/**
 * LDAP (bind DN) authentication: sources administrators manage with
 * `hearth plugins run ldap add-source …` (bind passwords sealed at rest), checked by a tap on
 * `auth.verifyPassword` ahead of local accounts — so basic auth on the API and git and the web
 * sign-in form all accept directory passwords. A first sign-in creates the account; every sign-in
 * applies the admin/restricted filters and maps the user's groups to teams through the
 * group-mapping service. Client: ldapts.
 */
export default definePlugin({
  name: 'ldap',
  version: '0.1.0',
  apiVersion: '^2.2.0',
  description: 'LDAP authentication sources with group search mapped to organization teams',
  requires: [groupMappingRef],
  migrations: ldapMigrations,
  apply(ctx) {
    const store = new LdapSourceStore(ctx);
    const authenticator = new LdapAuthenticator(ctx, store, ctx.services.get(groupMappingRef));
    const checkServer = async (fields: LdapSourceFields) => {
      try {
        await new Directory({ ...fields, id: 0, updatedUnix: 0 }).check();
      } catch (err) {
        throw new ApiError(502, `the LDAP server ${fields.host}:${fields.port} cannot be used: ${(err as Error).message}`);
      }
    };
    for (const command of sourceCommands({ store, checkServer })) ctx.commands.add(command);
    // Before the kernel's local accounts (stage 100), which take every login the directory does not know.
    ctx.hooks.auth.verifyPassword.tapPromise({ name: 'ldap', stage: 0 }, (check) => authenticator.verify(check));
  },
});
