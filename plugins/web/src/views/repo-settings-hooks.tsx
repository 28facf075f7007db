/**
 * `/{owner}/{repo}/settings/hooks`: the repository's webhooks; a webhook's form (new and edit),
 * its test delivery, and its delivery history with each request and response and a redeliver button.
 */
import { Notice, Pager, When } from './common';
import { Csrf, type PageKit } from './layout';
import { WebhookFields, type DeliveryJson, type HookForm, type HookJson } from './webhook-form';
import { FormErrorNotice, SettingsBox, SettingsFrame, settingsHref, type FormError, type SettingsRepoJson } from './repo-settings-frame';

function hookHref(repo: SettingsRepoJson, id: number | string): string {
  return settingsHref(repo, `/hooks/${id}`);
}

export interface HooksListProps {
  kit: PageKit;
  repo: SettingsRepoJson;
  hooks: HookJson[];
  done?: string;
  error?: FormError;
}

export function HooksListPage({ kit, repo, hooks, done, error }: HooksListProps) {
  return (
    <SettingsFrame kit={kit} repo={repo} section="hooks" title="Webhooks" hooks done={done}>
      <div class="list-head">
        <p class="meta">Webhooks send an HTTP POST request to a URL when something happens in this repository.</p>
        <a class="button primary" href={settingsHref(repo, '/hooks/gitea/new')}>
          Add webhook
        </a>
      </div>
      <FormErrorNotice error={error} form="hooks" />
      {hooks.length === 0 ? (
        <p class="empty">No webhooks.</p>
      ) : (
        <ul class="rows">
          {hooks.map((hook) => (
            <li class="settings-row">
              <span class="grow">
                <a class="title" href={hookHref(repo, hook.id)}>
                  {hook.config.url}
                </a>
                <span class="meta">
                  {' '}
                  · {hook.type} · {hook.active ? 'active' : 'inactive'} ·{' '}
                  {hook.events.length === 1 ? hook.events[0] : `${hook.events.length} events`}
                </span>
              </span>
              <form method="post" action={settingsHref(repo, '/hooks/delete')} class="inline">
                <Csrf kit={kit} />
                <input type="hidden" name="id" value={String(hook.id)} />
                <button type="submit" class="danger" aria-label={`Delete the webhook to ${hook.config.url}`}>
                  Delete
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
    </SettingsFrame>
  );
}

export interface HookPageProps {
  kit: PageKit;
  repo: SettingsRepoJson;
  /** Null for a new webhook. */
  hook: HookJson | null;
  form: HookForm;
  deliveries: DeliveryJson[];
  page: number;
  limit: number;
  total: number;
  done?: string;
  error?: FormError;
}

function DeliveryStatus({ delivery }: { delivery: DeliveryJson }) {
  if (!delivery.delivered) return <span class="delivery pending">{delivery.attempts ? 'Retrying' : 'Pending'}</span>;
  return delivery.is_succeed ? <span class="delivery ok">Succeeded</span> : <span class="delivery failed">Failed</span>;
}

function Headers({ headers }: { headers?: Record<string, string> }) {
  const entries = Object.entries(headers ?? {});
  if (entries.length === 0) return null;
  return <pre class="plain">{entries.map(([name, value]) => `${name}: ${value}`).join('\n')}</pre>;
}

function DeliveryItem({ kit, repo, hook, delivery }: { kit: PageKit; repo: SettingsRepoJson; hook: HookJson; delivery: DeliveryJson }) {
  const response = delivery.response;
  return (
    <li class="delivery-row">
      <div class="settings-row">
        <span class="grow">
          <DeliveryStatus delivery={delivery} /> <code>{delivery.uuid}</code> <span class="meta">{delivery.event}</span>
          <span class="meta">
            {' '}
            · <When at={delivery.delivered_at ?? delivery.created_at} />
            {response?.status ? ` · HTTP ${response.status}` : ''}
            {response?.duration_ms !== undefined ? ` · ${response.duration_ms} ms` : ''}
          </span>
        </span>
        <form method="post" action={`${hookHref(repo, hook.id)}/replay/${encodeURIComponent(delivery.uuid)}`} class="inline">
          <Csrf kit={kit} />
          <button type="submit" aria-label={`Redeliver ${delivery.uuid}`}>
            Redeliver
          </button>
        </form>
      </div>
      <details>
        <summary>Request and response</summary>
        <h3>Request</h3>
        {delivery.request ? (
          <>
            <p class="meta">
              {delivery.request.http_method} {delivery.request.url}
            </p>
            <Headers headers={delivery.request.headers} />
            {delivery.request.body && <pre class="plain">{delivery.request.body}</pre>}
          </>
        ) : (
          <p class="empty">Not sent yet.</p>
        )}
        <h3>Response</h3>
        {response?.error ? (
          <p class="mirror-error">{response.error}</p>
        ) : response ? (
          <>
            <Headers headers={response.headers} />
            {response.body && <pre class="plain">{response.body}</pre>}
          </>
        ) : (
          <p class="empty">No response yet.</p>
        )}
      </details>
    </li>
  );
}

function Deliveries({ kit, repo, hook, deliveries, page, limit, total }: HookPageProps & { hook: HookJson }) {
  return (
    <SettingsBox id="deliveries-title" title="Recent deliveries">
      <form method="post" action={`${hookHref(repo, hook.id)}/test`} class="test-delivery">
        <Csrf kit={kit} />
        <button type="submit">Test delivery</button>
        <span class="meta">Sends a push event of the default branch’s latest commit.</span>
      </form>
      {deliveries.length === 0 ? (
        <p class="empty">No deliveries yet.</p>
      ) : (
        <ul class="rows deliveries">
          {deliveries.map((delivery) => (
            <DeliveryItem kit={kit} repo={repo} hook={hook} delivery={delivery} />
          ))}
        </ul>
      )}
      <Pager page={page} limit={limit} total={total} href={(p) => `${hookHref(repo, hook.id)}?page=${p}#deliveries-title`} />
    </SettingsBox>
  );
}

export function HookPage(props: HookPageProps) {
  const { kit, repo, hook, form, done, error } = props;
  const editable = !hook || hook.type === 'gitea';
  const action = hook ? settingsHref(repo, `/hooks/gitea/${hook.id}`) : settingsHref(repo, '/hooks/gitea/new');
  return (
    <SettingsFrame kit={kit} repo={repo} section="hooks" title={hook ? 'Edit webhook' : 'Add webhook'} hooks done={done}>
      <p>
        <a href={settingsHref(repo, '/hooks')}>← All webhooks</a>
      </p>
      <SettingsBox id="hook-title" title={hook ? `Gitea webhook ${hook.config.url}` : 'Gitea webhook'}>
        <FormErrorNotice error={error} form="hook" />
        {editable ? (
          <form method="post" action={action} class="stacked">
            <Csrf kit={kit} />
            <WebhookFields form={form} editing={hook !== null} />
            <button type="submit" class="primary">
              {hook ? 'Update webhook' : 'Add webhook'}
            </button>
          </form>
        ) : (
          <Notice>This {hook!.type} webhook is edited through the API; its test delivery, history and deletion are here.</Notice>
        )}
      </SettingsBox>
      {hook && <Deliveries {...props} hook={hook} />}
      {hook && (
        <form method="post" action={settingsHref(repo, '/hooks/delete')}>
          <Csrf kit={kit} />
          <input type="hidden" name="id" value={String(hook.id)} />
          <button type="submit" class="danger">
            Delete webhook
          </button>
        </form>
      )}
    </SettingsFrame>
  );
}
