/**
 * `/{owner}/{repo}/settings/hooks`: the repository's webhooks; a webhook's form (new and edit),
 * its test delivery, and its delivery history with each request and response and a redeliver button.
 */
import { Notice, Pager, When } from './common';
import { Csrf, type PageKit } from './layout';
import { FormErrorNotice, SettingsBox, SettingsFrame, settingsHref, type FormError, type SettingsRepoJson } from './repo-settings-frame';

/** Gitea's Hook JSON. */
export interface HookJson {
  id: number;
  type: string;
  branch_filter: string;
  config: { url: string; content_type: string; http_method?: string };
  events: string[];
  active: boolean;
  created_at: string;
  updated_at: string;
}

/** A delivery as the API's history lists it (a Hearth extension). */
export interface DeliveryJson {
  id: number;
  uuid: string;
  event: string;
  delivered: boolean;
  is_succeed: boolean;
  attempts: number;
  created_at?: string;
  delivered_at?: string;
  next_attempt_at?: string;
  request: { url?: string; http_method?: string; content_type?: string; headers?: Record<string, string>; body?: string } | null;
  response: { status?: number; headers?: Record<string, string>; body?: string; error?: string; duration_ms?: number } | null;
}

/** The events a hook can choose (the API's names) and how Gitea's form labels them. */
export const HOOK_EVENTS: Array<[string, string]> = [
  ['create', 'Create: a branch or tag is created'],
  ['delete', 'Delete: a branch or tag is deleted'],
  ['fork', 'Fork: the repository is forked'],
  ['push', 'Push: commits are pushed'],
  ['repository', 'Repository: the repository is created or deleted'],
  ['release', 'Release: a release is published, updated or deleted'],
  ['package', 'Package: a package is published or deleted'],
  ['wiki', 'Wiki: a wiki page is created, edited or deleted'],
  ['issues', 'Issues: opened, closed, reopened or edited'],
  ['issue_assign', 'Issue assigned'],
  ['issue_label', 'Issue labelled'],
  ['issue_milestone', 'Issue milestoned'],
  ['issue_comment', 'Issue comment'],
  ['pull_request', 'Pull request: opened, closed, reopened or edited'],
  ['pull_request_assign', 'Pull request assigned'],
  ['pull_request_label', 'Pull request labelled'],
  ['pull_request_milestone', 'Pull request milestoned'],
  ['pull_request_comment', 'Pull request comment'],
  ['pull_request_review', 'Pull request reviewed'],
  ['pull_request_sync', 'Pull request synchronised'],
  ['pull_request_review_request', 'Pull request review requested'],
];

/** What a webhook form shows: a hook's settings, or what a refused form sent. */
export interface HookForm {
  url: string;
  http_method: string;
  content_type: string;
  branch_filter: string;
  /** push: push events only; all: every event; choose: `events`. */
  trigger: 'push' | 'all' | 'choose';
  events: string[];
  active: boolean;
}

export const NEW_HOOK: HookForm = {
  url: '',
  http_method: 'POST',
  content_type: 'json',
  branch_filter: '*',
  trigger: 'push',
  events: [],
  active: true,
};

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

function Choice({ name, value, label, checked }: { name: string; value: string; label: string; checked: boolean }) {
  const id = `${name}-${value}`;
  return (
    <div class="check">
      <input type="radio" id={id} name={name} value={value} checked={checked} />
      <label for={id}>{label}</label>
    </div>
  );
}

function HookFormFields({ form, editing }: { form: HookForm; editing: boolean }) {
  return (
    <>
      <label for="payload_url">Target URL</label>
      <input id="payload_url" name="payload_url" type="url" required maxLength={2048} value={form.url} />
      <label for="http_method">HTTP method</label>
      <select id="http_method" name="http_method">
        {['POST', 'GET'].map((m) => (
          <option value={m} selected={form.http_method.toUpperCase() === m}>
            {m}
          </option>
        ))}
      </select>
      <label for="content_type">POST content type</label>
      <select id="content_type" name="content_type">
        <option value="json" selected={form.content_type !== 'form'}>
          application/json
        </option>
        <option value="form" selected={form.content_type === 'form'}>
          application/x-www-form-urlencoded
        </option>
      </select>
      <label for="secret">Secret{editing ? ' (leave empty to keep the current one)' : ''}</label>
      <input id="secret" name="secret" type="password" autocomplete="new-password" maxLength={255} />
      <label for="authorization_header">Authorization header{editing ? ' (leave empty to keep the current one)' : ' (optional)'}</label>
      <input id="authorization_header" name="authorization_header" type="password" autocomplete="off" maxLength={4096} />
      <fieldset>
        <legend>Trigger on</legend>
        <Choice name="events" value="push_only" label="Push events" checked={form.trigger === 'push'} />
        <Choice name="events" value="send_everything" label="All events" checked={form.trigger === 'all'} />
        <Choice name="events" value="choose_events" label="Custom events (chosen below)" checked={form.trigger === 'choose'} />
        <fieldset class="hook-events">
          <legend>Custom events</legend>
          {HOOK_EVENTS.map(([name, label]) => (
            <div class="check">
              <input type="checkbox" id={`event-${name}`} name="event" value={name} checked={form.events.includes(name)} />
              <label for={`event-${name}`}>{label}</label>
            </div>
          ))}
        </fieldset>
      </fieldset>
      <label for="branch_filter">Branch filter (a glob such as main, release/*, {'{main,dev}'}; * for every branch)</label>
      <input id="branch_filter" name="branch_filter" maxLength={1024} value={form.branch_filter} />
      <div class="check">
        <input type="checkbox" id="active" name="active" value="on" checked={form.active} />
        <label for="active">Active: deliver events to the target URL</label>
      </div>
    </>
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
            <HookFormFields form={form} editing={hook !== null} />
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
