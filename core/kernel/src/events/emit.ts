import type { ForgeEvent, KernelHooks } from '@hearth/plugin-api';

/**
 * Fan a forge event out through `webhook.emit` (webhook deliveries, feeds, notifications).
 * `event` is Gitea's event type (issues, issue_comment, pull_request, release, …) and `payload`
 * its Gitea-shaped body; subscribers add `repository` and `sender` when the emitter left them out.
 * Taps are contained by the kernel: emitting never fails the caller. Pushes, repositories and
 * packages are emitted by the translator in domain-events.ts, from the kernel's own hooks.
 */
export async function emitEvent(hooks: KernelHooks, event: Omit<ForgeEvent, 'occurredAt'>): Promise<void> {
  await hooks.webhook.emit.promise({ ...event, occurredAt: new Date() });
}
