/**
 * System webhooks in site administration (the API's `/admin/hooks`): `/admin/hooks` (list),
 * `/admin/system-hooks/{type}/new` and `/admin/hooks/{id}` (edit, recent deliveries, delete).
 */
import { Notice, When } from './common';
import { Csrf, type PageKit } from './layout';
import { AdminShell } from './admin-pages';
import { ActionButton } from './org-admin-parts';
import { HOOK_EVENTS, HOOK_TYPES, WebhookFields, type DeliveryJson, type HookForm, type HookJson } from './webhook-form';

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

export interface HookFormProps {
  kit: PageKit;
  form: HookForm;
  /** The hook being edited; absent for a new one. */
  hook?: HookJson;
  deliveries?: DeliveryJson[];
  saved?: boolean;
  error?: string;
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
          <WebhookFields form={form} editing={Boolean(hook)} />
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
