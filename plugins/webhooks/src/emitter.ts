import type { Knex } from 'knex';
import type { ForgeEvent, PluginContext } from '@hearth/plugin-api';
import type { Deliverer } from './delivery';
import { enqueue } from './delivery';
import { branchMatches, toWebhook, wantsEvent, type WebhookRow } from './model';
import { shortRef, type Envelope } from './payloads';

/** Active hooks that see events of a repository (its own, its owner's, the system's) or of an owner. */
export async function hooksFor(db: Knex, repoId: number, ownerId: number): Promise<WebhookRow[]> {
  const rows = await db('webhook')
    .where('is_active', true)
    .where((b) => {
      b.where('is_system_webhook', true);
      if (repoId) b.orWhere('repo_id', repoId);
      if (ownerId) b.orWhere((o) => o.where({ repo_id: 0, owner_id: ownerId, is_system_webhook: false }));
    });
  return rows.map(toWebhook);
}

/** The branch a ref event is about, for the hooks' branch filter ('' for tags and other events). */
function branchOf(e: ForgeEvent): string {
  const p = e.payload;
  if (e.event === 'push' && typeof p.ref === 'string' && p.ref.startsWith('refs/heads/')) return shortRef(p.ref);
  if ((e.event === 'create' || e.event === 'delete') && p.ref_type === 'branch' && typeof p.ref === 'string') return p.ref;
  return '';
}

/**
 * Turns forge events (`webhook.emit`, where every webhook-producing event goes) into queued
 * deliveries. The `webhook.emit` tap runs inside the request that caused the event (the kernel
 * awaits notification hooks), so the rows exist before it answers; each event costs one SELECT
 * of the matching hooks and, when some match, one INSERT.
 */
export function eventEmitter(ctx: PluginContext, deliverer: Deliverer): (e: ForgeEvent) => Promise<void> {
  const { db, repositories } = ctx;

  const queue = async (repoId: number, ownerId: number, eventType: string, envelope: Envelope, branch = ''): Promise<void> => {
    const candidates = await hooksFor(db, repoId, ownerId);
    const chosen = candidates.filter((h) => wantsEvent(h, eventType) && branchMatches(h, branch));
    if (await enqueue(db, chosen, eventType, envelope)) deliverer.wake();
  };

  return async (e: ForgeEvent) => {
    let ownerId = e.ownerId ?? 0;
    if (!ownerId && e.repositoryId) ownerId = (await repositories.byId(e.repositoryId))?.ownerId ?? 0;
    const actorId = e.actor?.id;
    const p = e.payload;
    if (e.event === 'push' && typeof p.ref === 'string' && typeof p.before === 'string' && typeof p.after === 'string') {
      // The commits are read from git by the worker at the first attempt.
      const envelope: Envelope = { repoId: e.repositoryId, actorId, payload: {}, push: { ref: p.ref, before: p.before, after: p.after } };
      await queue(e.repositoryId ?? 0, ownerId, 'push', envelope, branchOf(e));
      return;
    }
    if (e.event === 'create' || e.event === 'delete') {
      await queue(e.repositoryId ?? 0, ownerId, e.event, { repoId: e.repositoryId, actorId, payload: { ...p } }, branchOf(e));
      return;
    }
    const payload = { ...p };
    if (e.action !== undefined && !('action' in payload)) payload.action = e.action;
    if (e.event === 'repository' && e.action === 'deleted') {
      // The repository's own hooks go with it (repository.deleted); its owner's and the system hooks hear of it.
      await queue(0, ownerId, 'repository', { payload, actorId });
      return;
    }
    await queue(e.repositoryId ?? 0, ownerId, e.event, { payload, repoId: e.repositoryId, actorId });
  };
}

/** Remove hooks (`where` selects them) with their undelivered deliveries: their repository or owner is gone. */
export async function removeHooks(db: Knex, where: Record<string, number>): Promise<void> {
  const own = await db('webhook').where(where).pluck('id');
  if (own.length) {
    await db('hook_task').whereIn('hook_id', own).where('is_delivered', false).delete();
    await db('webhook').whereIn('id', own).delete();
  }
}
