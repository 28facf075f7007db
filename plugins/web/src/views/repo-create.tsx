/** The new repository form (`/repo/create`), as Gitea's: owner, name, visibility, and the first commit's templates. */
import { Notice } from './common';
import { Csrf, Layout, type PageKit } from './layout';

/** An account the viewer may create repositories for: themselves, or an organization. */
export interface OwnerChoice {
  id: number;
  name: string;
}

/** The form's values, as sent (kept when the form comes back with an error). */
export interface RepoForm {
  uid: number;
  repo_name: string;
  description: string;
  private: boolean;
  template: boolean;
  auto_init: boolean;
  gitignores: string[];
  license: string;
  readme: string;
  issue_labels: string;
  default_branch: string;
}

export interface RepoCreateProps {
  kit: PageKit;
  owners: OwnerChoice[];
  form: RepoForm;
  gitignores: string[];
  licenses: string[];
  /** Null when the issues feature (which owns label sets) is off. */
  labelSets: string[] | null;
  error?: string;
}

function Options({ values, selected, none }: { values: string[]; selected: string | string[]; none?: string }) {
  const chosen = new Set(Array.isArray(selected) ? selected : [selected]);
  return (
    <>
      {none !== undefined && <option value="">{none}</option>}
      {values.map((v) => (
        <option value={v} selected={chosen.has(v)}>
          {v}
        </option>
      ))}
    </>
  );
}

export function RepoCreatePage({ kit, owners, form, gitignores, licenses, labelSets, error }: RepoCreateProps) {
  return (
    <Layout kit={kit} title="New repository">
      <section class="narrow wide-form">
        <h1>New repository</h1>
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action="/repo/create" class="stacked">
          <Csrf kit={kit} />
          <label for="uid">Owner</label>
          <select id="uid" name="uid">
            {owners.map((o) => (
              <option value={String(o.id)} selected={o.id === form.uid}>
                {o.name}
              </option>
            ))}
          </select>
          <label for="repo_name">Repository name</label>
          <input id="repo_name" name="repo_name" value={form.repo_name} required maxLength={100} autofocus />
          <label for="description">Description</label>
          <textarea id="description" name="description" maxLength={2048} rows={3}>
            {form.description}
          </textarea>
          <div class="check">
            <input type="checkbox" id="private" name="private" value="on" checked={form.private} />
            <label for="private">Make repository private (only you and the people you add can see it)</label>
          </div>
          <div class="check">
            <input type="checkbox" id="template" name="template" value="on" checked={form.template} />
            <label for="template">Make repository a template</label>
          </div>
          <fieldset>
            <legend>Initial contents</legend>
            <div class="check">
              <input type="checkbox" id="auto_init" name="auto_init" value="on" checked={form.auto_init} />
              <label for="auto_init">Initialize repository (adds a README, and the .gitignore and license chosen below)</label>
            </div>
            <label for="readme">README</label>
            <select id="readme" name="readme">
              <Options values={['Default']} selected={form.readme || 'Default'} />
            </select>
            <label for="gitignores">.gitignore templates (choose any number)</label>
            <select id="gitignores" name="gitignores" multiple size={6}>
              <Options values={gitignores} selected={form.gitignores} />
            </select>
            <label for="license">License</label>
            <select id="license" name="license">
              <Options values={licenses} selected={form.license} none="No license" />
            </select>
          </fieldset>
          {labelSets && (
            <>
              <label for="issue_labels">Issue labels</label>
              <select id="issue_labels" name="issue_labels">
                <Options values={labelSets} selected={form.issue_labels} none="No labels" />
              </select>
            </>
          )}
          <label for="default_branch">Default branch</label>
          <input id="default_branch" name="default_branch" value={form.default_branch} maxLength={100} />
          <button type="submit" class="primary">
            Create repository
          </button>
        </form>
      </section>
    </Layout>
  );
}
