import type { Knex } from 'knex';
import type { ForgeEvent, PackageEvent, PushEvent, RepositoryEvent, UserEvent } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import { ZERO_ID } from '../repos/git';
import type { Deliverer } from './delivery';
import { enqueue } from './delivery';
import { branchMatches, toWebhook, wantsEvent, type WebhookRow } from './model';
import { shortRef, type Envelope } from './payloads';

/** Active hooks that see events of a repository (its own, its owner's, the system's) or of an owner. */
export async function hooksFor(db: Knex, repoId: number, ownerId: number): Promise<WebhookRow[]> {
  const rows = await db('webhook').where('is_active', true).where((b) => {
    b.where('is_system_webhook', true);
    if (repoId) b.orWhere('repo_id', repoId);
    if (ownerId) b.orWhere((o) => o.where({ repo_id: 0, owner_id: ownerId, is_system_webhook: false }));
  });
  return rows.map(toWebhook);
}

/**
 * Turn the kernel's events into queued deliveries. Every tap here runs inside the request that
 * caused the event (the kernel awaits notification hooks), so the rows exist before it answers;
 * each tap does one SELECT of the matching hooks and, when some match, one INSERT.
 */
export function tapEvents(deps: KernelServices, deliverer: Deliverer): void {
  const { db, hooks, repos } = deps;

  const queue = async (repoId: number, ownerId: number, eventType: string, envelope: Envelope, branch = ''): Promise<void> => {
    const candidates = await hooksFor(db, repoId, ownerId);
    const chosen = candidates.filter((h) => wantsEvent(h, eventType) && branchMatches(h, branch));
    if (await enqueue(db, chosen, eventType, envelope)) deliverer.wake();
  };

  hooks.webhook.emit.tapPromise('hearth:webhooks', async (e: ForgeEvent) => {
    let ownerId = e.ownerId ?? 0;
    if (!ownerId && e.repositoryId) ownerId = (await repos.byId(e.repositoryId))?.owner_id ?? 0;
    const payload = { ...e.payload };
    if (e.action !== undefined && !('action' in payload)) payload.action = e.action;
    await queue(e.repositoryId ?? 0, ownerId, e.event, { payload, repoId: e.repositoryId, actorId: e.actor?.id });
  });

  hooks.push.received.tapPromise('hearth:webhooks', async (e: PushEvent) => {
    const candidates = await hooksFor(db, e.repositoryId, e.ownerId);
    if (candidates.length === 0) return;
    const base = { repoId: e.repositoryId, actorId: e.actor?.id };
    const batches: Array<[WebhookRow[], string, Envelope]> = [];
    for (const u of e.updates) {
      const isTag = u.ref.startsWith('refs/tags/');
      const isBranch = u.ref.startsWith('refs/heads/');
      if (!isTag && !isBranch) continue;
      const branch = isBranch ? shortRef(u.ref) : '';
      const pick = (type: string) => candidates.filter((h) => wantsEvent(h, type) && branchMatches(h, branch));
      const refType = isTag ? 'tag' : 'branch';
      if (u.oldId === ZERO_ID) {
        batches.push([pick('create'), 'create', { ...base, payload: { sha: u.newId, ref: shortRef(u.ref), ref_type: refType } }]);
      }
      if (u.newId === ZERO_ID) {
        batches.push([pick('delete'), 'delete', { ...base, payload: { ref: shortRef(u.ref), ref_type: refType, pusher_type: 'user' } }]);
      }
      batches.push([pick('push'), 'push', { ...base, payload: {}, push: { ref: u.ref, before: u.oldId, after: u.newId } }]);
    }
    let queued = 0;
    for (const [chosen, type, envelope] of batches) queued += await enqueue(db, chosen, type, envelope);
    if (queued) deliverer.wake();
  });

  hooks.repository.created.tapPromise('hearth:webhooks', async (e: RepositoryEvent) => {
    const owner = await deps.users.byId(e.ownerId);
    const organization = owner && owner.type === 1 ? deps.users.toApi(owner, null) : undefined;
    await queue(e.repositoryId, e.ownerId, 'repository', { payload: { action: 'created', ...(organization ? { organization } : {}) }, repoId: e.repositoryId, actorId: e.actor?.id });
    const row = await repos.byId(e.repositoryId);
    if (row?.is_fork && row.fork_id) {
      const parent = await repos.byId(row.fork_id);
      if (parent) {
        // The fork event goes to the forked repository's hooks: `forkee` is that repository, `repository` the new fork.
        await queue(parent.id, parent.owner_id, 'fork', { payload: { forkee: { $repo: parent.id } }, repoId: e.repositoryId, actorId: e.actor?.id });
      }
    }
  });

  hooks.repository.deleted.tapPromise('hearth:webhooks', async (e: RepositoryEvent) => {
    // The repository's own hooks go with it; its owner's and the system hooks hear of it.
    const own = await db('webhook').where('repo_id', e.repositoryId).pluck('id');
    if (own.length) {
      await db('hook_task').whereIn('hook_id', own).where('is_delivered', false).delete();
      await db('webhook').whereIn('id', own).delete();
    }
    const owner = await deps.users.byId(e.ownerId);
    const organization = owner && owner.type === 1 ? deps.users.toApi(owner, null) : undefined;
    await queue(0, e.ownerId, 'repository', {
      payload: { action: 'deleted', ...(organization ? { organization } : {}) }, actorId: e.actor?.id,
      repoFallback: { id: e.repositoryId, name: e.name, ownerId: e.ownerId, ownerName: e.ownerName },
    });
  });

  hooks.user.deleted.tapPromise('hearth:webhooks', async (e: UserEvent) => {
    const own = await db('webhook').where({ owner_id: e.user.id, repo_id: 0 }).pluck('id');
    if (own.length) {
      await db('hook_task').whereIn('hook_id', own).where('is_delivered', false).delete();
      await db('webhook').whereIn('id', own).delete();
    }
  });

  hooks.package.published.tapPromise('hearth:webhooks', async (e: PackageEvent) => {
    const root = deps.config.server.ROOT_URL;
    const ownerRow = await deps.users.byId(e.ownerId);
    const pkg = {
      id: e.packageVersionId,
      owner: ownerRow ? deps.users.toApi(ownerRow, null) : null,
      repository: null,
      type: e.type,
      name: e.name,
      version: e.version,
      html_url: `${root}${encodeURIComponent(e.ownerName)}/-/packages/${encodeURIComponent(e.type)}/${encodeURIComponent(e.name)}/${encodeURIComponent(e.version)}`,
      created_at: new Date().toISOString(),
    };
    const creator = e.actor ? await deps.users.byId(e.actor.id) : undefined;
    await queue(0, e.ownerId, 'package', { payload: { action: 'created', package: { ...pkg, creator: creator ? deps.users.toApi(creator, null) : null } }, actorId: e.actor?.id });
  });
}
