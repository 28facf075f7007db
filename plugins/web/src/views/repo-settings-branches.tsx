/**
 * `/{owner}/{repo}/settings/branches`: the default branch and the branch protection rules (list,
 * delete), and `…/branches/edit`: a rule's form (who may push and merge, required approvals,
 * status checks, reviews, signed commits, protected files).
 */
import { plural } from './common';
import { Csrf, type PageKit } from './layout';
import {
  Check,
  FormErrorNotice,
  SettingsBox,
  SettingsFrame,
  settingsHref,
  type FormError,
  type SettingsRepoJson,
} from './repo-settings-frame';

/** Gitea's BranchProtection JSON, as the form shows and sends it. */
export interface RuleJson {
  rule_name: string;
  enable_push: boolean;
  enable_push_whitelist: boolean;
  push_whitelist_usernames: string[];
  push_whitelist_teams: string[];
  push_whitelist_deploy_keys: boolean;
  enable_merge_whitelist: boolean;
  merge_whitelist_usernames: string[];
  merge_whitelist_teams: string[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals: number;
  enable_approvals_whitelist: boolean;
  approvals_whitelist_username: string[];
  approvals_whitelist_teams: string[];
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  require_signed_commits: boolean;
  protected_file_patterns: string;
  unprotected_file_patterns: string;
}

export const EMPTY_RULE: RuleJson = {
  rule_name: '',
  enable_push: false,
  enable_push_whitelist: false,
  push_whitelist_usernames: [],
  push_whitelist_teams: [],
  push_whitelist_deploy_keys: false,
  enable_merge_whitelist: false,
  merge_whitelist_usernames: [],
  merge_whitelist_teams: [],
  enable_status_check: false,
  status_check_contexts: [],
  required_approvals: 0,
  enable_approvals_whitelist: false,
  approvals_whitelist_username: [],
  approvals_whitelist_teams: [],
  block_on_rejected_reviews: false,
  block_on_official_review_requests: false,
  block_on_outdated_branch: false,
  dismiss_stale_approvals: false,
  require_signed_commits: false,
  protected_file_patterns: '',
  unprotected_file_patterns: '',
};

/** The rule's yes/no settings shown as checkboxes, after the push, merge and approval sections. */
export const RULE_FLAGS: Array<[keyof RuleJson & string, string]> = [
  ['block_on_rejected_reviews', 'Block merging when a review requests changes'],
  ['block_on_official_review_requests', 'Block merging while official reviews are requested'],
  ['block_on_outdated_branch', 'Block merging when the pull request is behind the base branch'],
  ['dismiss_stale_approvals', 'Dismiss approvals when new commits are pushed'],
  ['require_signed_commits', 'Require signed commits'],
];

function pushSummary(rule: RuleJson): string {
  if (!rule.enable_push) return 'Pushing is disabled';
  if (!rule.enable_push_whitelist) return 'Anyone with write access may push';
  const who = [...rule.push_whitelist_usernames, ...rule.push_whitelist_teams.map((t) => `team ${t}`)];
  return who.length ? `Only ${who.join(', ')} may push` : 'Nobody may push';
}

function ruleHref(repo: SettingsRepoJson, name: string): string {
  return `${settingsHref(repo, '/branches/edit')}?rule_name=${encodeURIComponent(name)}`;
}

export interface BranchesPageProps {
  kit: PageKit;
  repo: SettingsRepoJson;
  rules: RuleJson[];
  /** The repository's branch names (empty for an empty repository). */
  branches: string[];
  hooks: boolean;
  done?: string;
  error?: FormError;
}

function DefaultBranch({ kit, repo, branches, error }: BranchesPageProps) {
  return (
    <SettingsBox id="default-branch-title" title="Default branch">
      <FormErrorNotice error={error} form="default-branch" />
      {branches.length === 0 ? (
        <p class="empty">The repository has no branches yet.</p>
      ) : (
        <form method="post" action={settingsHref(repo, '/branches')} class="inline-fields">
          <Csrf kit={kit} />
          <label for="branch">Default branch</label>
          <select id="branch" name="branch">
            {branches.map((name) => (
              <option value={name} selected={name === repo.default_branch}>
                {name}
              </option>
            ))}
          </select>
          <button type="submit">Update default branch</button>
        </form>
      )}
    </SettingsBox>
  );
}

export function BranchesPage(props: BranchesPageProps) {
  const { kit, repo, rules, hooks, done, error } = props;
  return (
    <SettingsFrame kit={kit} repo={repo} section="branches" title="Branches" hooks={hooks} done={done}>
      <DefaultBranch {...props} />
      <SettingsBox id="rules-title" title="Branch protection rules">
        <FormErrorNotice error={error} form="rules" />
        <p class="meta">
          Protect branches from being pushed to, force-pushed or deleted, and set what a pull request needs before it is merged.
        </p>
        {rules.length === 0 ? (
          <p class="empty">No branch is protected.</p>
        ) : (
          <ul class="rows">
            {rules.map((rule) => (
              <li class="settings-row">
                <span class="grow">
                  <span class="branch">{rule.rule_name}</span>
                  <span class="meta">
                    {' '}
                    · {pushSummary(rule)}
                    {rule.required_approvals > 0 ? ` · ${plural(rule.required_approvals, 'approval')} required` : ''}
                    {rule.enable_status_check ? ' · status checks required' : ''}
                  </span>
                </span>
                <a class="button" href={ruleHref(repo, rule.rule_name)} aria-label={`Edit the rule ${rule.rule_name}`}>
                  Edit
                </a>
                <form method="post" action={settingsHref(repo, `/branches/${encodeURIComponent(rule.rule_name)}/delete`)} class="inline">
                  <Csrf kit={kit} />
                  <button type="submit" class="danger" aria-label={`Delete the rule ${rule.rule_name}`}>
                    Delete
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <p>
          <a class="button primary" href={settingsHref(repo, '/branches/edit')}>
            Add branch protection rule
          </a>
        </p>
      </SettingsBox>
    </SettingsFrame>
  );
}

export interface RulePageProps {
  kit: PageKit;
  repo: SettingsRepoJson;
  /** The rule's name before this edit; null for a new rule. */
  original: string | null;
  rule: RuleJson;
  /** Whether the repository's owner is an organization (team allow-lists). */
  teams: boolean;
  hooks: boolean;
  error?: FormError;
}

/** User names and, for an organization's repository, team names of an allow-list. */
function AllowList({
  prefix,
  users,
  teams,
  rule,
}: {
  prefix: string;
  users: keyof RuleJson;
  teams: keyof RuleJson | null;
  rule: RuleJson;
}) {
  const joined = (key: keyof RuleJson) => (rule[key] as string[]).join(', ');
  return (
    <div class="allow-list">
      <label for={`${prefix}_users`}>Users (names, separated by commas)</label>
      <input id={`${prefix}_users`} name={users} value={joined(users)} maxLength={4096} autocomplete="off" />
      {teams && (
        <>
          <label for={`${prefix}_teams`}>Teams (names, separated by commas)</label>
          <input id={`${prefix}_teams`} name={teams} value={joined(teams)} maxLength={4096} autocomplete="off" />
        </>
      )}
    </div>
  );
}

function PushChoice({ value, label, rule }: { value: string; label: string; rule: RuleJson }) {
  const current = !rule.enable_push ? 'none' : rule.enable_push_whitelist ? 'whitelist' : 'all';
  return (
    <div class="check">
      <input type="radio" id={`enable_push-${value}`} name="enable_push" value={value} checked={current === value} />
      <label for={`enable_push-${value}`}>{label}</label>
    </div>
  );
}

function RuleFields({ rule, teams }: { rule: RuleJson; teams: boolean }) {
  return (
    <>
      <label for="rule_name">Branch name or pattern (e.g. main, release/*)</label>
      <input id="rule_name" name="rule_name" required maxLength={255} value={rule.rule_name} />
      <fieldset>
        <legend>Push</legend>
        <PushChoice value="none" label="Disable push: nobody may push to matching branches" rule={rule} />
        <PushChoice value="all" label="Enable push: anyone with write access may push (no force push)" rule={rule} />
        <PushChoice value="whitelist" label="Restrict push to these users and teams:" rule={rule} />
        <AllowList prefix="push" users="push_whitelist_usernames" teams={teams ? 'push_whitelist_teams' : null} rule={rule} />
        <Check
          name="push_whitelist_deploy_keys"
          label="Deploy keys with write access may push too"
          checked={rule.push_whitelist_deploy_keys}
        />
      </fieldset>
      <fieldset>
        <legend>Merge</legend>
        <Check name="enable_merge_whitelist" label="Restrict merging to these users and teams:" checked={rule.enable_merge_whitelist} />
        <AllowList prefix="merge" users="merge_whitelist_usernames" teams={teams ? 'merge_whitelist_teams' : null} rule={rule} />
      </fieldset>
      <fieldset>
        <legend>Status checks</legend>
        <Check name="enable_status_check" label="Require these status checks to pass before merging:" checked={rule.enable_status_check} />
        <label for="status_check_contexts">Status check contexts (one per line; globs allowed)</label>
        <textarea id="status_check_contexts" name="status_check_contexts" rows={3} maxLength={8192}>
          {rule.status_check_contexts.join('\n')}
        </textarea>
      </fieldset>
      <fieldset>
        <legend>Approvals</legend>
        <label for="required_approvals">Required approvals</label>
        <input id="required_approvals" name="required_approvals" type="number" min={0} max={100} value={String(rule.required_approvals)} />
        <Check
          name="enable_approvals_whitelist"
          label="Count only approvals from these users and teams:"
          checked={rule.enable_approvals_whitelist}
        />
        <AllowList prefix="approvals" users="approvals_whitelist_username" teams={teams ? 'approvals_whitelist_teams' : null} rule={rule} />
      </fieldset>
      <fieldset>
        <legend>Reviews and commits</legend>
        {RULE_FLAGS.map(([name, label]) => (
          <Check name={name} label={label} checked={rule[name] as boolean} />
        ))}
      </fieldset>
      <label for="protected_file_patterns">Protected file patterns (separated by semicolons: pushes may not change these files)</label>
      <input id="protected_file_patterns" name="protected_file_patterns" maxLength={4096} value={rule.protected_file_patterns} />
      <label for="unprotected_file_patterns">
        Unprotected file patterns (separated by semicolons: pushes changing only these files are allowed even when pushing is restricted)
      </label>
      <input id="unprotected_file_patterns" name="unprotected_file_patterns" maxLength={4096} value={rule.unprotected_file_patterns} />
    </>
  );
}

export function RulePage({ kit, repo, original, rule, teams, hooks, error }: RulePageProps) {
  return (
    <SettingsFrame
      kit={kit}
      repo={repo}
      section="branches"
      title={original ? 'Edit branch protection' : 'New branch protection'}
      hooks={hooks}
    >
      <p>
        <a href={settingsHref(repo, '/branches')}>← All branch protection rules</a>
      </p>
      <FormErrorNotice error={error} form="rule" />
      <form method="post" action={settingsHref(repo, '/branches/edit')} class="stacked settings-form">
        <Csrf kit={kit} />
        {original !== null && <input type="hidden" name="original_rule_name" value={original} />}
        <RuleFields rule={rule} teams={teams} />
        <button type="submit" class="primary">
          Save rule
        </button>
      </form>
    </SettingsFrame>
  );
}
