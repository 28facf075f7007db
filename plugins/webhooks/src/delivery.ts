import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { sign } from '@octokit/webhooks-methods';
import { rowReader, type Logger, type PluginContext } from '@hearth/plugin-api';
import { contentTypeOf, formatBody } from './formats';
import { headerEvent, toWebhook, type HeaderSealer, type WebhookRow } from './model';
import { PayloadBuilder, type Envelope } from './payloads';

/** The `[webhook]` settings the workers follow (seconds, counts). */
interface WebhookSection {
  DELIVER_TIMEOUT: number;
  WORKERS: number;
  MAX_ATTEMPTS: number;
  RETRY_BACKOFF: number;
  POLL_INTERVAL: number;
}

/** Bytes of a request or response body kept in the delivery history. */
const HISTORY_BODY_BYTES = 16 * 1024;
/** Longest wait between retries. */
const MAX_BACKOFF_MS = 3600_000;

export interface TaskRow {
  id: number;
  uuid: string;
  hook_id: number;
  repo_id: number;
  event_type: string;
  payload: string;
  payload_content: string | null;
  request_info: string | null;
  response_info: string | null;
  is_delivered: boolean;
  is_succeed: boolean;
  attempts: number;
  next_attempt: number;
  claimed_until: number;
  claim_token: string;
  delivered: number;
  created: number;
}

export const toTask = rowReader<TaskRow>({
  numbers: ['id', 'hook_id', 'repo_id', 'attempts', 'next_attempt', 'claimed_until', 'delivered', 'created'],
  booleans: ['is_delivered', 'is_succeed'],
});

/** Queue rows for the hooks that want an event: one small multi-row INSERT, no git, no HTTP. */
export async function enqueue(db: Knex, hooks: WebhookRow[], eventType: string, envelope: Envelope): Promise<number> {
  if (hooks.length === 0) return 0;
  const payload = JSON.stringify(envelope);
  const now = Date.now();
  const rows = hooks.map((h) => ({
    uuid: crypto.randomUUID(),
    hook_id: h.id,
    repo_id: envelope.repoId ?? 0,
    event_type: eventType,
    payload,
    next_attempt: now,
    created: now,
  }));
  await db('hook_task').insert(rows);
  return rows.length;
}

/**
 * The delivery worker pool of this process. Rows are claimed with a conditional UPDATE that sets
 * a lease (`claimed_until`) and a claim token: a row whose lease is running is not claimable, so
 * two workers, in this process or another, never send one row at the same time. A worker that
 * dies holding rows (SIGKILL, power loss) leaves them to be claimed again when the lease runs
 * out: delivery is at least once, and a receiver that saw the request but whose answer was lost
 * may see it again with the same X-Gitea-Delivery UUID.
 */
export class Deliverer {
  private readonly inflight = new Set<Promise<void>>();
  /** Rows claimed (leased) by this process but not yet started: claims are batched. */
  private buffer: TaskRow[] = [];
  private readonly builder: PayloadBuilder;
  private readonly hookCache = new Map<number, { at: number; hook: Promise<WebhookRow | null> }>();
  private timer?: NodeJS.Timeout;
  private running = false;
  private pumping = false;
  private again = false;

  constructor(
    private readonly ctx: PluginContext,
    private readonly headers: HeaderSealer,
    private readonly log: Logger,
  ) {
    this.builder = new PayloadBuilder(ctx);
  }

  /** `[webhook]` settings, read per use. */
  private get settings() {
    const w = this.ctx.forge.raw.webhook as WebhookSection;
    const timeoutMs = Math.round(w.DELIVER_TIMEOUT * 1000);
    return {
      workers: w.WORKERS,
      timeoutMs,
      maxAttempts: w.MAX_ATTEMPTS,
      backoffMs: Math.round(w.RETRY_BACKOFF * 1000),
      pollMs: Math.max(10, Math.round(w.POLL_INTERVAL * 1000)),
      // Long enough for one attempt with its payload built; then the row is another worker's.
      leaseMs: timeoutMs * 2 + 5000,
    };
  }

  start(): void {
    if (this.running || this.settings.workers <= 0) return;
    this.running = true;
    this.timer = setInterval(() => this.wake(), this.settings.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Stop claiming; wait for the attempts under way (each bounded by DELIVER_TIMEOUT). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    while (this.pumping) await new Promise((resolve) => setTimeout(resolve, 5));
    // Claimed but not started: hand them back at once rather than at the end of their lease.
    const unsent = this.buffer;
    this.buffer = [];
    for (const task of unsent) {
      await this.ctx.db('hook_task').where({ id: task.id, claim_token: task.claim_token }).update({ claimed_until: 0, claim_token: '' });
    }
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** Look at the queue soon (rows were just added). Never awaited by the caller. */
  wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    setImmediate(() => void this.pump());
  }

  forgetHook(id: number): void {
    this.hookCache.delete(id);
  }

  private async pump(): Promise<void> {
    if (this.pumping || !this.running) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        const { workers } = this.settings;
        let free = workers - this.inflight.size;
        if (free <= 0) break;
        let full = false;
        if (this.buffer.length < free) {
          const want = workers * 2 - this.buffer.length;
          const rows = await this.claim(want);
          this.buffer.push(...rows);
          full = rows.length === want;
        }
        if (!this.running) break;
        while (free > 0 && this.buffer.length) {
          free--;
          const row = this.buffer.shift()!;
          const p: Promise<void> = this.attempt(row)
            .catch((err) => this.log.error({ err, delivery: row.uuid }, 'webhook delivery failed unexpectedly'))
            .finally(() => {
              this.inflight.delete(p);
              this.wake();
            });
          this.inflight.add(p);
        }
        if (full) this.again = true;
      } while (this.again && this.running);
    } catch (err) {
      this.log.error({ err }, 'webhook queue: claiming deliveries failed');
    } finally {
      this.pumping = false;
    }
  }

  /** Claim up to `n` due rows for this process. */
  private async claim(n: number): Promise<TaskRow[]> {
    const { db } = this.ctx;
    const now = Date.now();
    const due = (
      await db('hook_task')
        .where('is_delivered', false)
        .where('next_attempt', '<=', now)
        .where('claimed_until', '<', now)
        .orderBy('next_attempt')
        .orderBy('id')
        .limit(n)
    ).map(toTask);
    if (due.length === 0) return [];
    const ids = due.map((t) => t.id);
    const token = crypto.randomUUID();
    const claimed = await db('hook_task')
      .whereIn('id', ids)
      .where('is_delivered', false)
      .where('claimed_until', '<', now)
      .update({ claimed_until: now + this.settings.leaseMs, claim_token: token });
    if (!claimed) return [];
    // All of them (the usual case): the rows read are ours. Otherwise another worker won some.
    if (Number(claimed) === due.length) return due.map((t) => ({ ...t, claim_token: token }));
    return (await db('hook_task').where('claim_token', token).whereIn('id', ids)).map(toTask);
  }

  private hook(id: number): Promise<WebhookRow | null> {
    const now = Date.now();
    const hit = this.hookCache.get(id);
    if (hit && now - hit.at < 2000) return hit.hook;
    const hook = this.ctx
      .db('webhook')
      .where('id', id)
      .first()
      .then((raw: unknown) => (raw ? toWebhook(raw) : null));
    this.hookCache.set(id, { at: now, hook });
    hook.catch(() => this.hookCache.delete(id));
    return hook;
  }

  /** One attempt at one claimed row; the outcome is written back under the claim token. */
  private async attempt(task: TaskRow): Promise<void> {
    const s = this.settings;
    const finish = (patch: Record<string, unknown>) => this.record(task, patch);
    const hook = await this.hook(task.hook_id);
    if (!hook) {
      const gone = JSON.stringify({ error: 'the webhook no longer exists' });
      await finish({ is_delivered: true, is_succeed: false, response_info: gone, delivered: Date.now() });
      return;
    }

    // The body is built at the first attempt and kept: retries and redeliveries send the same bytes.
    let body = task.payload_content;
    let contentType: string;
    const firstBuild = body === null || body === undefined;
    if (firstBuild) {
      try {
        ({ body, contentType } = formatBody(hook, task.event_type, await this.builder.build(task.payload)));
      } catch (err) {
        this.log.error({ err, delivery: task.uuid }, 'webhook payload could not be built');
        await finish(this.failure(task, { error: `payload could not be built: ${(err as Error).message}` }, null, false));
        return;
      }
    } else {
      const previous = parseJson(task.request_info) as { content_type?: string } | null;
      contentType = previous?.content_type ?? contentTypeOf(hook);
    }
    const content = body!;
    const keep = firstBuild ? { payload_content: content } : {};
    const headers = await this.requestHeaders(hook, task, content, contentType!);
    let method = hook.http_method.toUpperCase() === 'GET' ? 'GET' : 'POST';
    let url = hook.url;
    if (method === 'GET') {
      const u = new URL(hook.url);
      u.searchParams.set('payload', content);
      url = u.toString();
      method = 'GET';
    }
    const shownHeaders = { ...headers };
    if (shownHeaders.Authorization) shownHeaders.Authorization = '******';
    const requestInfo = { url: hook.url, http_method: method, content_type: contentType!, headers: shownHeaders };

    const started = Date.now();
    try {
      const body = method === 'GET' ? undefined : content;
      const options = { method, headers, body, timeoutMs: s.timeoutMs, maxRedirects: 5, maxBodyBytes: HISTORY_BODY_BYTES };
      const res = await this.ctx.outbound.request(url, options, 'webhook');
      const duration = Date.now() - started;
      const responseInfo = {
        status: res.status,
        headers: flatten(res.headers),
        body: res.body,
        truncated: res.truncated,
        duration_ms: duration,
      };
      if (res.status >= 200 && res.status < 300) {
        await finish({
          ...keep,
          request_info: JSON.stringify(requestInfo),
          response_info: JSON.stringify(responseInfo),
          is_delivered: true,
          is_succeed: true,
          attempts: task.attempts + 1,
          delivered: Date.now(),
        });
      } else {
        await finish({ ...keep, ...this.failure(task, responseInfo, requestInfo, true) });
      }
    } catch (err) {
      const refused = this.ctx.outbound.isRefusal(err);
      const reason = refused ? `refused by webhook.ALLOWED_HOST_LIST: ${(err as Error).message}` : (err as Error).message || String(err);
      // A refused destination is a setting, not a passing failure: no retries (redeliver after changing it).
      await finish({ ...keep, ...this.failure(task, { error: reason, duration_ms: Date.now() - started }, requestInfo, !refused) });
    }
  }

  private pending: Array<{ task: TaskRow; patch: Record<string, unknown>; done: (err?: unknown) => void }> = [];
  private flushing = false;

  /**
   * Write an attempt's outcome (under its claim token, releasing the lease). Outcomes that finish
   * together are written in one transaction: one commit for many rows.
   */
  private record(task: TaskRow, patch: Record<string, unknown>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ task, patch, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending.splice(0, 200);
      try {
        await this.ctx.db.transaction(async (trx) => {
          for (const { task, patch } of batch) {
            const released = { ...patch, claimed_until: 0, claim_token: '' };
            await trx('hook_task').where({ id: task.id, claim_token: task.claim_token }).update(released);
          }
        });
        for (const b of batch) b.done();
      } catch (err) {
        for (const b of batch) b.done(err);
      }
    }
    this.flushing = false;
  }

  private failure(
    task: TaskRow,
    responseInfo: Record<string, unknown>,
    requestInfo: Record<string, unknown> | null,
    retry: boolean,
  ): Record<string, unknown> {
    const s = this.settings;
    const attempts = task.attempts + 1;
    const giveUp = !retry || attempts >= s.maxAttempts;
    return {
      ...(requestInfo ? { request_info: JSON.stringify(requestInfo) } : {}),
      response_info: JSON.stringify(responseInfo),
      is_delivered: giveUp,
      is_succeed: false,
      attempts,
      delivered: Date.now(),
      next_attempt: giveUp ? 0 : Date.now() + Math.min(MAX_BACKOFF_MS, s.backoffMs * 2 ** (attempts - 1)),
    };
  }

  private async requestHeaders(hook: WebhookRow, task: TaskRow, body: string, contentType: string): Promise<Record<string, string>> {
    const event = headerEvent(task.event_type);
    const headers: Record<string, string> = {
      'Content-Type': contentType,
      'User-Agent': 'Hearth-Webhook',
      'X-Gitea-Delivery': task.uuid,
      'X-Gitea-Event': event,
      'X-Gitea-Event-Type': task.event_type,
      'X-Gogs-Delivery': task.uuid,
      'X-Gogs-Event': event,
      'X-Gogs-Event-Type': task.event_type,
      'X-GitHub-Delivery': task.uuid,
      'X-GitHub-Event': event,
      'X-GitHub-Event-Type': task.event_type,
      'X-Hearth-Attempt': String(task.attempts + 1),
    };
    if (hook.secret && body) {
      const hex = crypto.createHmac('sha256', hook.secret).update(body).digest('hex');
      headers['X-Gitea-Signature'] = hex;
      headers['X-Gogs-Signature'] = hex;
      headers['X-Hub-Signature'] = `sha1=${crypto.createHmac('sha1', hook.secret).update(body).digest('hex')}`;
      headers['X-Hub-Signature-256'] = await sign({ secret: hook.secret, algorithm: 'sha256' as any }, body);
    }
    if (hook.header_authorization_encrypted) headers.Authorization = this.headers.open(hook.header_authorization_encrypted);
    return headers;
  }
}

function parseJson(text: string | null): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function clip(text: string): string {
  return text.length > HISTORY_BODY_BYTES ? `${text.slice(0, HISTORY_BODY_BYTES)}…` : text;
}

function flatten(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Gitea's delivery record shape for the history endpoint (a Hearth extension). */
export function taskToApi(task: TaskRow): Record<string, unknown> {
  const iso = (ms: number) => (ms ? new Date(ms).toISOString() : undefined);
  return {
    id: task.id,
    uuid: task.uuid,
    hook_id: task.hook_id,
    event: task.event_type,
    delivered: task.is_delivered,
    is_succeed: task.is_succeed,
    attempts: task.attempts,
    created_at: iso(task.created),
    delivered_at: iso(task.delivered),
    next_attempt_at: task.is_delivered ? undefined : iso(task.next_attempt),
    request: task.request_info ? { ...(parseJson(task.request_info) as object), body: clip(task.payload_content ?? '') } : null,
    response: parseJson(task.response_info),
  };
}
