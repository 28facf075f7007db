import { createServiceRef, definePlugin } from '@hearth/plugin-api';
import { groupMapping, type GroupMapping } from './group-sync';

export { parseGroupTeamMap, type GroupTeamMap, type MappedTeam } from './group-map';
export type { GroupMapping, GroupSyncInput, GroupSyncReport } from './group-sync';

/** Group → team mapping for identity plugins: list it in `requires` and read it with `ctx.services.get`. @public */
export const groupMappingRef = createServiceRef<GroupMapping>('group-mapping.sync');

/**
 * Maps the groups an identity source reports (OIDC group claims, LDAP group memberships) to
 * organization teams and the site administrator / restricted flags, in Gitea's LDAP group-mapping
 * JSON format. It has no routes or tables: the identity plugins call it on every sign-in.
 */
export default definePlugin({
  name: 'group-mapping',
  version: '0.1.0',
  apiVersion: '^2.2.0',
  description: 'Identity-provider groups to organization teams (for the oidc and ldap plugins)',
  provides: [groupMappingRef],
  apply(ctx) {
    ctx.services.provide(groupMappingRef, groupMapping(ctx, ctx.log));
  },
});
