/**
 * The one webhook form of the pages — a repository's webhooks and site administration's system
 * webhooks — with Gitea's field names (`payload_url`, `events` = push_only / send_everything /
 * choose_events, one `event` checkbox per event, `authorization_header`, `active`).
 */
import { Checkbox, TextField } from './org-admin-parts';

/** Gitea's Hook JSON. */
export interface HookJson {
  id: number;
  type: string;
  branch_filter: string;
  config: { url: string; content_type?: string; http_method?: string; channel?: string };
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
  request?: { url?: string; http_method?: string; content_type?: string; headers?: Record<string, string>; body?: string } | null;
  response?: { status?: number; headers?: Record<string, string>; body?: string; error?: string; duration_ms?: number } | null;
}

/** The webhook types the forms create, and how they are called. */
export const HOOK_TYPES: Record<string, string> = {
  gitea: 'Gitea',
  gogs: 'Gogs',
  slack: 'Slack',
  discord: 'Discord',
  msteams: 'Microsoft Teams',
};

/** The events a hook can choose (the API's names) and how the form labels them. */
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
  type: string;
  url: string;
  http_method: string;
  content_type: string;
  branch_filter: string;
  /** Slack's channel. */
  channel: string;
  /** push: push events only; all: every event; choose: `events`. */
  trigger: 'push' | 'all' | 'choose';
  events: string[];
  active: boolean;
}

/** The form of a new hook of a type. */
export function newHookForm(type: string): HookForm {
  return {
    type,
    url: '',
    http_method: 'POST',
    content_type: 'json',
    branch_filter: '*',
    channel: '',
    trigger: 'push',
    events: [],
    active: true,
  };
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

/** The HTTP settings of the Gitea and Gogs types: method, content type, secret, authorization header. */
function HttpFields({ form, editing }: { form: HookForm; editing: boolean }) {
  const keep = editing ? ' (leave empty to keep the current one)' : '';
  return (
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
      <label for="secret">Secret{keep}</label>
      <input id="secret" name="secret" type="password" autocomplete="new-password" maxLength={255} />
      <label for="authorization_header">Authorization header{keep || ' (optional)'}</label>
      <input id="authorization_header" name="authorization_header" type="password" autocomplete="off" maxLength={4096} />
    </>
  );
}

/** The fields of a webhook form (inside the page's own `<form>`, which carries the action and CSRF token). */
export function WebhookFields({ form, editing }: { form: HookForm; editing: boolean }) {
  return (
    <>
      <label for="payload_url">Target URL</label>
      <input id="payload_url" name="payload_url" type="url" required maxLength={2048} value={form.url} />
      {(form.type === 'gitea' || form.type === 'gogs') && <HttpFields form={form} editing={editing} />}
      {form.type === 'slack' && <TextField id="channel" label="Channel" value={form.channel} required maxLength={100} />}
      <fieldset>
        <legend>Trigger on</legend>
        <Choice name="events" value="push_only" label="Push events" checked={form.trigger === 'push'} />
        <Choice name="events" value="send_everything" label="All events" checked={form.trigger === 'all'} />
        <Choice name="events" value="choose_events" label="Custom events (chosen below)" checked={form.trigger === 'choose'} />
        <fieldset class="hook-events">
          <legend>Custom events</legend>
          {HOOK_EVENTS.map(([name, label]) => (
            <Checkbox id={`event-${name}`} name="event" value={name} checked={form.events.includes(name)} label={label} />
          ))}
        </fieldset>
      </fieldset>
      <label for="branch_filter">Branch filter (a glob such as main, release/*, {'{main,dev}'}; * for every branch)</label>
      <input id="branch_filter" name="branch_filter" maxLength={1024} value={form.branch_filter} />
      <Checkbox id="active" checked={form.active} label="Active: deliver events to the target URL" />
    </>
  );
}
