import type { PackageEvent, PushEvent, RepositoryEvent, UserInfo } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { ZERO_ID } from '../repos/git';
import { repoLinks } from '../repos/links';
import { emitEvent } from './emit';

const shortRef = (ref: string): string => ref.replace(/^refs\/(heads|tags)\//, '');

/**
 * The one translator from the kernel's own notification hooks to forge events: every event that
 * produces a webhook goes through `webhook.emit`, so plugins see it as the webhooks feature does.
 * - `push.received` → per branch or tag update: `create` (ref created), `delete` (ref deleted),
 *   then `push` with `{ ref, before, after }` (the commits are read from git by the subscriber);
 * - `repository.created` → `repository` (created) and, for a fork, `fork` to the parent's hooks;
 * - `repository.deleted` → `repository` (deleted), carrying the `repository` it no longer can look up;
 * - `package.published` / `package.deleted` → `package` (created / deleted).
 * Payloads are Gitea's, minus what subscribers add (`repository`, `sender`, a push's commits);
 * `{ $repo: id }` stands for that repository's JSON. Events of one push are emitted in order,
 * each after the previous one's subscribers are done. Tapped once, by the kernel at boot.
 */
export function tapDomainEvents(deps: Pick<KernelServices, 'hooks' | 'users' | 'repos' | 'config'>): void {
  const { hooks, users, repos, config } = deps;

  /** The owner's JSON when it is an organization (Gitea's `organization` of repository events). */
  const organizationOf = async (ownerId: number): Promise<Record<string, unknown> | undefined> => {
    const owner = await users.byId(ownerId);
    return owner && owner.type === 1 ? users.toApi(owner, null) : undefined;
  };

  hooks.push.received.tapPromise('hearth:forge-events', async (e: PushEvent) => {
    const base = { actor: e.actor, ownerId: e.ownerId, repositoryId: e.repositoryId };
    for (const u of e.updates) {
      const isTag = u.ref.startsWith('refs/tags/');
      if (!isTag && !u.ref.startsWith('refs/heads/')) continue;
      const refType = isTag ? 'tag' : 'branch';
      if (u.oldId === ZERO_ID)
        await emitEvent(hooks, { ...base, event: 'create', payload: { sha: u.newId, ref: shortRef(u.ref), ref_type: refType } });
      if (u.newId === ZERO_ID)
        await emitEvent(hooks, { ...base, event: 'delete', payload: { ref: shortRef(u.ref), ref_type: refType, pusher_type: 'user' } });
      await emitEvent(hooks, { ...base, event: 'push', payload: { ref: u.ref, before: u.oldId, after: u.newId } });
    }
  });

  hooks.repository.created.tapPromise('hearth:forge-events', async (e: RepositoryEvent) => {
    const organization = await organizationOf(e.ownerId);
    await emitEvent(hooks, {
      event: 'repository',
      action: 'created',
      actor: e.actor,
      ownerId: e.ownerId,
      repositoryId: e.repositoryId,
      payload: { action: 'created', ...(organization ? { organization } : {}) },
    });
    const row = await repos.byId(e.repositoryId);
    if (row?.is_fork && row.fork_id) {
      const parent = await repos.byId(row.fork_id);
      // Gitea's fork event goes to the forked repository's hooks: `forkee` is that repository, `repository` the new fork.
      if (parent) {
        await emitEvent(hooks, {
          event: 'fork',
          actor: e.actor,
          ownerId: parent.owner_id,
          repositoryId: parent.id,
          payload: { forkee: { $repo: parent.id }, repository: { $repo: e.repositoryId } },
        });
      }
    }
  });

  hooks.repository.deleted.tapPromise('hearth:forge-events', async (e: RepositoryEvent) => {
    const organization = await organizationOf(e.ownerId);
    const links = repoLinks(config, e.ownerName, e.name);
    const ownerRow = await users.byId(e.ownerId);
    // The repository is gone: describe it from the event (what a subscriber could no longer look up).
    const repository = {
      id: e.repositoryId,
      name: e.name,
      full_name: `${e.ownerName}/${e.name}`,
      owner: ownerRow ? users.toApi(ownerRow, null) : null,
      html_url: links.html,
      url: links.api,
      clone_url: `${links.html}.git`,
    };
    await emitEvent(hooks, {
      event: 'repository',
      action: 'deleted',
      actor: e.actor,
      ownerId: e.ownerId,
      repositoryId: e.repositoryId,
      payload: { action: 'deleted', ...(organization ? { organization } : {}), repository },
    });
  });

  const packageEvent = async (e: PackageEvent, action: 'created' | 'deleted'): Promise<void> => {
    const root = config.server.ROOT_URL;
    const ownerRow = await users.byId(e.ownerId);
    const creator = e.actor ? await users.byId(e.actor.id) : undefined;
    const pkg = {
      id: e.packageVersionId,
      owner: ownerRow ? users.toApi(ownerRow, null) : null,
      repository: null,
      type: e.type,
      name: e.name,
      version: e.version,
      html_url:
        `${root}${encodeURIComponent(e.ownerName)}/-/packages/${encodeURIComponent(e.type)}/` +
        `${encodeURIComponent(e.name)}/${encodeURIComponent(e.version)}`,
      created_at: new Date().toISOString(),
      creator: creator ? users.toApi(creator, null) : null,
    };
    await emitEvent(hooks, {
      event: 'package',
      action,
      actor: e.actor as UserInfo | null,
      ownerId: e.ownerId,
      payload: { action, package: pkg },
    });
  };
  hooks.package.published.tapPromise('hearth:forge-events', (e: PackageEvent) => packageEvent(e, 'created'));
  hooks.package.deleted.tapPromise('hearth:forge-events', (e: PackageEvent) => packageEvent(e, 'deleted'));
}
