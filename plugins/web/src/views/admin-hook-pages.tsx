/**
 * System webhooks in site administration (the API's `/admin/hooks`): `/admin/hooks` (list),
 * `/admin/system-hooks/{type}/new` and `/admin/hooks/{id}` (edit, recent deliveries, delete).
 */
import { Notice, When } from './common';
import { Csrf, type PageKit } from './layout';
import { AdminShell } from './admin-pages';
import { ActionButton, Checkbox, TextField } from './org-admin-parts';

/** Gitea's Hook JSON. */
export interface HookJson {
  id: number;
  type: string;
  branch_filter: string;
  config: Record<string, string>;
  events: string[];
  active: boolean;
  created_at: string;
  updated_at: string;
}

/** A delivery of a hook (Hearth's delivery history). */
export interface DeliveryJson {
  id: number;
  uuid: string;
  event: string;
  delivered: boolean;
  is_succeed: boolean;
  attempts: number;
  created_at?: string;
  response?: { status?: number } | null;
}

export const HOOK_TYPES: Record<string, string> = {
  gitea: 'Gitea',
  gogs: 'Gogs',
  slack: 'Slack',
  discord: 'Discord',
  msteams: 'Microsoft Teams',
};

/** The events a hook can choose, as the API names them. */
export const HOOK_EVENTS: Array<[string, string]> = [
  ['create', 'Branch or tag created'],
  ['delete', 'Branch or tag deleted'],
  ['fork', 'Repository forked'],
  ['push', 'Push'],
  ['repository', 'Repository created or deleted'],
  ['release', 'Release'],
  ['package', 'Package'],
  ['wiki', 'Wiki'],
  ['issues', 'Issue opened, closed, edited'],
  ['issue_assign', 'Issue assigned'],
  ['issue_label', 'Issue labels'],
  ['issue_milestone', 'Issue milestone'],
  ['issue_comment', 'Issue comment'],
  ['pull_request', 'Pull request opened, closed, edited'],
  ['pull_request_assign', 'Pull request assigned'],
  ['pull_request_label', 'Pull request labels'],
  ['pull_request_milestone', 'Pull request milestone'],
  ['pull_request_comment', 'Pull request comment'],
  ['pull_request_review', 'Pull request reviewed'],
  ['pull_request_sync', 'Pull request synchronized'],
  ['pull_request_review_request', 'Review requested'],
];

export type EventMode = 'push' | 'all' | 'choose';

export interface HookForm {
  type: string;
  url: string;
  http_method: string;
  content_type: string;
  branch_filter: string;
  channel: string;
  mode: EventMode;
  events: string[];
  active: boolean;
}

function eventsSummary(hook: HookJson): string {
  if (hook.events.length === 1 && hook.events[0] === 'push') return 'Push';
  if (hook.events.length >= HOOK_EVENTS.length) return 'Everything';
  return `${hook.events.length} events`;
}

export function AdminHooksPage({ kit, hooks, disabled, notice }: { kit: PageKit; hooks: HookJson[]; disabled: boolean; notice?: string }) {
  return (
    <AdminShell kit={kit} tab="hooks" title="System webhooks">
      {disabled ? (
        <p class="empty">Webhooks are turned off on this site.</p>
      ) : (
        <>
          <p>System webhooks receive the events of every repository on this site.</p>
          {notice && <Notice kind="success">{notice}</Notice>}
          <p class="hook-types">
            Add a webhook:{' '}
            {Object.entries(HOOK_TYPES).map(([type, label]) => (
              <>
                <a class="button" href={`/admin/system-hooks/${type}/new`}>
                  {label}
                </a>{' '}
              </>
            ))}
          </p>
          {hooks.length === 0 ? (
            <p class="empty">No system webhooks.</p>
          ) : (
            <ul class="rows">
              {hooks.map((hook) => (
                <li>
                  <a class="title code" href={`/admin/hooks/${hook.id}`}>
                    {hook.config.url}
                  </a>{' '}
                  <span class="badge">{HOOK_TYPES[hook.type] ?? hook.type}</span>
                  {!hook.active && <span class="badge">Inactive</span>}
                  <p class="meta">
                    {eventsSummary(hook)}
                    {hook.branch_filter && hook.branch_filter !== '*' ? ` · branches ${hook.branch_filter}` : ''} · updated{' '}
                    <When at={hook.updated_at} />
                  </p>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </AdminShell>
  );
}

function EventChoice({ form }: { form: HookForm }) {
  const chosen = new Set(form.events);
  return (
    <fieldset>
      <legend>Trigger on</legend>
      <div class="check">
        <input type="radio" id="mode_push" name="events_mode" value="push" checked={form.mode === 'push'} />
        <label for="mode_push">Push events</label>
      </div>
      <div class="check">
        <input type="radio" id="mode_all" name="events_mode" value="all" checked={form.mode === 'all'} />
        <label for="mode_all">All events</label>
      </div>
      <div class="check">
        <input type="radio" id="mode_choose" name="events_mode" value="choose" checked={form.mode === 'choose'} />
        <label for="mode_choose">Custom events, chosen below</label>
      </div>
      <fieldset class="hook-events">
        <legend>Custom events</legend>
        {HOOK_EVENTS.map(([name, label]) => (
          <Checkbox id={`event_${name}`} name="events" checked={chosen.has(name)} label={label} />
        ))}
      </fieldset>
    </fieldset>
  );
}

export interface HookFormProps {
  kit: PageKit;
  form: HookForm;
  /** The hook being edited; absent for a new one. */
  hook?: HookJson;
  deliveries?: DeliveryJson[];
  saved?: boolean;
  error?: string;
}

function HookFields({ form, editing }: { form: HookForm; editing: boolean }) {
  return (
    <>
      <TextField id="url" label="Target URL" type="url" value={form.url} required maxLength={2048} />
      {(form.type === 'gitea' || form.type === 'gogs') && (
        <>
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
          <TextField
            id="secret"
            label="Secret"
            type="password"
            value=""
            maxLength={255}
            autocomplete="new-password"
            hint={editing ? 'Empty: the secret stays.' : 'Signs each delivery (X-Gitea-Signature).'}
          />
        </>
      )}
      {form.type === 'slack' && <TextField id="channel" label="Channel" value={form.channel} required maxLength={100} />}
      <EventChoice form={form} />
      <TextField
        id="branch_filter"
        label="Branch filter"
        value={form.branch_filter}
        maxLength={255}
        hint="A glob such as main or release/*; empty: every branch."
      />
      <Checkbox id="active" checked={form.active} label="Active: deliver events to this hook" />
    </>
  );
}

export function AdminHookFormPage({ kit, form, hook, deliveries, saved, error }: HookFormProps) {
  const label = HOOK_TYPES[form.type] ?? form.type;
  const action = hook ? `/admin/hooks/${hook.id}` : `/admin/system-hooks/${encodeURIComponent(form.type)}/new`;
  return (
    <AdminShell kit={kit} tab="hooks" title={hook ? `Edit ${label} system webhook` : `Add ${label} system webhook`}>
      <section class="wide-form">
        {saved && <Notice kind="success">The webhook was saved.</Notice>}
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action={action} class="stacked">
          <Csrf kit={kit} />
          <HookFields form={form} editing={Boolean(hook)} />
          <button type="submit" class="primary">
            {hook ? 'Update webhook' : 'Add webhook'}
          </button>
        </form>
        {hook && (
          <>
            <h2>Recent deliveries</h2>
            {!deliveries || deliveries.length === 0 ? (
              <p class="empty">Nothing delivered yet.</p>
            ) : (
              <ul class="rows">
                {deliveries.map((d) => (
                  <li>
                    <code>{d.uuid}</code> {d.event}{' '}
                    <span class="badge">{d.delivered ? (d.is_succeed ? 'Succeeded' : 'Failed') : 'Pending'}</span>
                    {d.response?.status ? <span class="meta"> HTTP {d.response.status}</span> : null} <When at={d.created_at} />
                  </li>
                ))}
              </ul>
            )}
            <h2>Delete</h2>
            <ActionButton kit={kit} action="/admin/hooks/delete" fields={{ id: String(hook.id) }} label="Delete webhook" danger />
          </>
        )}
      </section>
    </AdminShell>
  );
}
