/** Form pieces the organization and site administration pages share: visibility choice, checkboxes, typed confirmation. */
import type { ComponentChildren } from 'preact';
import { Notice } from './common';
import { Csrf, type PageKit } from './layout';

export type VisibilityName = 'public' | 'limited' | 'private';
export const VISIBILITIES: VisibilityName[] = ['public', 'limited', 'private'];

const VISIBILITY_TEXT: Record<VisibilityName, string> = {
  public: 'Public: visible to everyone',
  limited: 'Limited: visible to signed-in users only',
  private: 'Private: visible to members only',
};

/** A visibility value from a form field (public when missing or unknown). */
export function visibilityOf(value: unknown): VisibilityName {
  return VISIBILITIES.includes(value as VisibilityName) ? (value as VisibilityName) : 'public';
}

/** Public, limited or private, as radio buttons in a fieldset. */
export function VisibilityChoice({ value, who = 'members' }: { value: VisibilityName; who?: string }) {
  return (
    <fieldset>
      <legend>Visibility</legend>
      {VISIBILITIES.map((v) => (
        <div class="check">
          <input type="radio" id={`visibility-${v}`} name="visibility" value={v} checked={value === v} />
          <label for={`visibility-${v}`}>{v === 'private' ? `Private: visible to ${who} only` : VISIBILITY_TEXT[v]}</label>
        </div>
      ))}
    </fieldset>
  );
}

/** A checkbox with its label; sent as `on` when checked. */
export function Checkbox({
  id,
  name = id,
  value = 'on',
  checked,
  label,
}: {
  id: string;
  name?: string;
  value?: string;
  checked: boolean;
  label: string;
}) {
  return (
    <div class="check">
      <input type="checkbox" id={id} name={name} value={value} checked={checked} />
      <label for={id}>{label}</label>
    </div>
  );
}

/** A text input with its label. */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  name?: string;
  type?: string;
  required?: boolean;
  maxLength?: number;
  autocomplete?: string;
  hint?: string;
}) {
  const { id, label, value, name = id, type = 'text', required, maxLength, autocomplete, hint } = props;
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={type}
        value={value}
        required={required}
        maxLength={maxLength}
        autocomplete={autocomplete}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      {hint && (
        <p class="meta" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </>
  );
}

/**
 * A destructive action behind a typed confirmation: the person types `expected` (a name) into
 * `field` before the button does anything; the server checks it again.
 */
export function TypedConfirm(props: {
  kit: PageKit;
  action: string;
  field: string;
  expected: string;
  title: string;
  button: string;
  error?: string;
  children?: ComponentChildren;
}) {
  const { kit, action, field, expected, title, button, error, children } = props;
  return (
    <section class="box danger-zone" id="delete" aria-labelledby={`${field}-title`}>
      <header>
        <h2 id={`${field}-title`}>{title}</h2>
      </header>
      <div class="body">
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action={action} class="stacked">
          <Csrf kit={kit} />
          {children}
          <label for={field}>
            Type <strong>{expected}</strong> to confirm
          </label>
          <input id={field} name={field} required autocomplete="off" />
          <button type="submit" class="danger">
            {button}
          </button>
        </form>
      </div>
    </section>
  );
}

/** A one-button form (remove, make public…): CSRF token, hidden fields, the button. */
export function ActionButton(props: {
  kit: PageKit;
  action: string;
  fields?: Record<string, string>;
  label: string;
  /** The button's accessible name when `label` alone is ambiguous in a list ("Remove alice"). */
  name?: string;
  danger?: boolean;
}) {
  const { kit, action, fields = {}, label, name, danger } = props;
  return (
    <form method="post" action={action} class="inline">
      <Csrf kit={kit} />
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={danger ? 'danger' : undefined} aria-label={name}>
        {label}
      </button>
    </form>
  );
}
