/** `/user/settings/applications`: the signed-in user's access tokens — list, create (with scopes), delete. */
import { Notice } from './common';
import { Csrf, type PageKit } from './layout';
import { SettingsFrame } from './user-settings-pages';

/** Gitea 1.20's nine token scope categories, in the order its settings page lists them. */
export const SCOPE_CATEGORIES = [
  'activitypub',
  'admin',
  'issue',
  'misc',
  'notification',
  'organization',
  'package',
  'repository',
  'user',
] as const;
export type ScopeCategory = (typeof SCOPE_CATEGORIES)[number];

/** The levels the API knows; each includes the ones before it (DELETE requests need `delete`). */
export const SCOPE_LEVELS = ['read', 'write', 'delete'] as const;
const LEVEL_LABELS: Record<(typeof SCOPE_LEVELS)[number], string> = {
  read: 'Read',
  write: 'Read and write',
  delete: 'Read, write and delete',
};

export interface TokenJson {
  id: number;
  name: string;
  token_last_eight: string;
  scopes: string[];
}

export interface TokenForm {
  name: string;
  /** `level:category` per chosen category. */
  scopes: string[];
}

export interface ApplicationsProps {
  kit: PageKit;
  tokens: TokenJson[];
  form: TokenForm;
  /** The secret of the token just created: shown on this one answer, never again. */
  created?: { name: string; secret: string };
  /** The viewer is a site administrator (only they may grant the admin category). */
  isAdmin: boolean;
  notice?: string;
  error?: string;
  /** The form was refused because it chose no scope. */
  noScope?: boolean;
}

export const SCOPE_WARNING = 'Select at least one scope: a token without any scope is refused, as it could not be used for anything.';

export function ApplicationsSettingsPage({ kit, tokens, form, created, isAdmin, notice, error, noScope }: ApplicationsProps) {
  return (
    <SettingsFrame kit={kit} tab="applications" title="Applications" notice={notice} error={noScope ? undefined : error}>
      {created && <NewToken created={created} />}
      <h2>Access tokens</h2>
      <p class="muted">Tokens let scripts and tools use the API and git over HTTP as you, limited to the scopes you choose.</p>
      {tokens.length === 0 ? (
        <p class="empty">You have no access tokens.</p>
      ) : (
        <ul class="rows token-list">
          {tokens.map((t) => (
            <li>
              <span class="title">{t.name}</span> <code class="muted">…{t.token_last_eight}</code>
              <span class="token-scopes">
                {t.scopes.filter(Boolean).map((s) => (
                  <span class="badge">{s}</span>
                ))}
              </span>
              <form method="post" action="/user/settings/applications/delete" class="inline row-action">
                <Csrf kit={kit} />
                <input type="hidden" name="id" value={String(t.id)} />
                <button type="submit" class="danger" aria-label={`Delete token ${t.name}`}>
                  Delete
                </button>
              </form>
            </li>
          ))}
        </ul>
      )}
      <TokenCreateForm kit={kit} form={form} isAdmin={isAdmin} refusal={noScope ? error : undefined} />
    </SettingsFrame>
  );
}

function NewToken({ created }: { created: { name: string; secret: string } }) {
  return (
    <Notice kind="success">
      <p>
        Token <strong>{created.name}</strong> was created. Copy it now: it will not be shown again.
      </p>
      <label for="new-token">New token</label>
      <div class="token-secret">
        <input id="new-token" class="code" value={created.secret} readOnly size={44} autocomplete="off" spellcheck={false} />
        <button type="button" data-copy="#new-token">
          Copy
        </button>
      </div>
    </Notice>
  );
}

/**
 * The create form: a name and a level per category. The scope warning is part of the page while
 * nothing is chosen (hearth.js hides it once a scope is chosen and keeps an empty form from being
 * sent); after a refused submission it carries the API's answer.
 */
function TokenCreateForm({ kit, form, isAdmin, refusal }: { kit: PageKit; form: TokenForm; isAdmin: boolean; refusal?: string }) {
  const chosen = new Map(form.scopes.map((s) => [s.split(':')[1], s] as const));
  return (
    <form method="post" action="/user/settings/applications" class="stacked settings-form" data-scope-form="scope-warning">
      <h3>Generate new token</h3>
      <Csrf kit={kit} />
      <label for="token-name">Token name</label>
      <input id="token-name" name="name" value={form.name} required maxLength={255} autocomplete="off" />
      <fieldset class="scope-grid">
        <legend>Scopes</legend>
        {SCOPE_CATEGORIES.map((category) => {
          const locked = category === 'admin' && !isAdmin;
          return (
            <div class="scope">
              <label for={`scope-${category}`}>
                {category}
                {locked && <span class="muted"> (site administrators only)</span>}
              </label>
              <select id={`scope-${category}`} name="scope" disabled={locked}>
                <option value="">No access</option>
                {!locked &&
                  SCOPE_LEVELS.map((level) => (
                    <option value={`${level}:${category}`} selected={chosen.get(category) === `${level}:${category}`}>
                      {LEVEL_LABELS[level]}
                    </option>
                  ))}
              </select>
            </div>
          );
        })}
      </fieldset>
      <p id="scope-warning" class={`scope-warning${refusal ? ' refused' : ''}`} role="alert" hidden={form.scopes.length > 0 && !refusal}>
        {SCOPE_WARNING}
        {refusal && <span class="muted"> ({refusal})</span>}
      </p>
      <button type="submit" class="primary">
        Generate token
      </button>
    </form>
  );
}
