import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { listAll, text } from './route-parts';
import { adminRepo, attempt, checked, doneOf, hooksOn, names, type Refused, type SettingsTarget } from './repo-settings-shared';
import { settingsHref } from '../views/repo-settings-frame';
import { BranchesPage, EMPTY_RULE, RULE_FLAGS, RulePage, type RuleJson } from '../views/repo-settings-branches';

/** The rule a form describes (Gitea's BranchProtection fields). */
function ruleOfBody(body: Record<string, unknown>): RuleJson {
  const push = text(body.enable_push, 16);
  const approvals = Number(text(body.required_approvals, 8) || 0);
  const rule: RuleJson = {
    ...EMPTY_RULE,
    rule_name: text(body.rule_name).trim(),
    enable_push: push === 'all' || push === 'whitelist',
    enable_push_whitelist: push === 'whitelist',
    push_whitelist_usernames: names(body.push_whitelist_usernames),
    push_whitelist_teams: names(body.push_whitelist_teams),
    push_whitelist_deploy_keys: checked(body, 'push_whitelist_deploy_keys'),
    enable_merge_whitelist: checked(body, 'enable_merge_whitelist'),
    merge_whitelist_usernames: names(body.merge_whitelist_usernames),
    merge_whitelist_teams: names(body.merge_whitelist_teams),
    enable_status_check: checked(body, 'enable_status_check'),
    status_check_contexts: [
      ...new Set(
        text(body.status_check_contexts, 8192)
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean),
      ),
    ],
    required_approvals: Number.isInteger(approvals) && approvals >= 0 ? approvals : 0,
    enable_approvals_whitelist: checked(body, 'enable_approvals_whitelist'),
    approvals_whitelist_username: names(body.approvals_whitelist_username),
    approvals_whitelist_teams: names(body.approvals_whitelist_teams),
    protected_file_patterns: text(body.protected_file_patterns, 4096).trim(),
    unprotected_file_patterns: text(body.unprotected_file_patterns, 4096).trim(),
  };
  for (const [name] of RULE_FLAGS) (rule as unknown as Record<string, boolean>)[name] = checked(body, name);
  return rule;
}

/** The rule's fields as the API's Create/EditBranchProtectionOption; team lists only for an organization's repository. */
function optionOf(rule: RuleJson, teams: boolean): Record<string, unknown> {
  const { rule_name: _name, ...fields } = rule;
  if (!teams) {
    for (const key of ['push_whitelist_teams', 'merge_whitelist_teams', 'approvals_whitelist_teams'] as const) delete fields[key];
  }
  return fields;
}

/** Whether the repository's owner is an organization: the API lists teams of those only. */
async function ownedByOrg(web: WebRoutes, at: SettingsTarget): Promise<boolean> {
  return (await web.api.find(at.viewer, `${at.api}/teams`)) !== null;
}

async function showBranches(web: WebRoutes, req: Request, res: Response, at: SettingsTarget, refused?: Refused): Promise<void> {
  const [rules, branches] = await Promise.all([
    web.api.get<RuleJson[]>(at.viewer, `${at.api}/branch_protections`),
    at.repo.empty ? Promise.resolve([]) : listAll<{ name: string }>(web, at.viewer, `${at.api}/branches`),
  ]);
  const props = {
    kit: web.renderer.kit(req),
    repo: at.repo,
    rules,
    branches: branches.map((b) => b.name),
    hooks: hooksOn(web),
    done: refused ? undefined : doneOf(req),
    error: refused?.error,
  };
  web.renderer.send(res, h(BranchesPage, props), refused?.status ?? 200);
}

/** Save a rule: create it, change it, or (renamed) create it under its new name and delete the old one. */
async function saveRule(web: WebRoutes, at: SettingsTarget, original: string, rule: RuleJson, teams: boolean): Promise<void> {
  if (!rule.rule_name) throw ApiError.unprocessable('Name the branch or pattern the rule protects.');
  const option = optionOf(rule, teams);
  const rules = `${at.api}/branch_protections`;
  if (original && original === rule.rule_name) {
    await web.api.send(at.viewer, 'patch', `${rules}${apiPath`/${original}`}`, option);
    return;
  }
  await web.api.send(at.viewer, 'post', rules, { ...option, rule_name: rule.rule_name });
  if (original) await web.api.send(at.viewer, 'delete', `${rules}${apiPath`/${original}`}`);
}

/**
 * `/{owner}/{repo}/settings/branches` at Gitea's URLs: the default branch (POST to the page), the
 * rules, `…/branches/edit[?rule_name=…]` (a rule's form and its POST) and `…/branches/{rule}/delete`,
 * through the API's branch protection operations.
 */
export function branchSettingsRoutes(web: WebRoutes): void {
  const { api, pages } = web;
  const base = '/:owner/:repo/settings/branches';

  pages.get(base, async (req, res) => showBranches(web, req, res, await adminRepo(web, req)));

  pages.post(base, async (req, res) => {
    const at = await adminRepo(web, req);
    const branch = text(req.body.branch).trim();
    const refused = await attempt('default-branch', () => api.send(at.viewer, 'patch', at.api, { default_branch: branch }));
    if (refused) return showBranches(web, req, res, at, refused);
    res.redirect(303, `${settingsHref(at.repo, '/branches')}?done=default-branch`);
  });

  pages.get(`${base}/edit`, async (req, res) => {
    const at = await adminRepo(web, req);
    const name = text(req.query.rule_name);
    const [rule, teams] = await Promise.all([
      name ? api.get<RuleJson>(at.viewer, `${at.api}${apiPath`/branch_protections/${name}`}`) : Promise.resolve(null),
      ownedByOrg(web, at),
    ]);
    const props = { kit: web.renderer.kit(req), repo: at.repo, original: rule ? rule.rule_name : null, teams, hooks: hooksOn(web) };
    web.renderer.send(res, h(RulePage, { ...props, rule: rule ? { ...EMPTY_RULE, ...rule } : EMPTY_RULE }));
  });

  pages.post(`${base}/edit`, async (req, res) => {
    const at = await adminRepo(web, req);
    const original = text(req.body.original_rule_name);
    const rule = ruleOfBody(req.body ?? {});
    const teams = await ownedByOrg(web, at);
    const refused = await attempt('rule', () => saveRule(web, at, original, rule, teams));
    if (refused) {
      const props = { kit: web.renderer.kit(req), repo: at.repo, original: original || null, rule, teams, hooks: hooksOn(web) };
      return web.renderer.send(res, h(RulePage, { ...props, error: refused.error }), refused.status);
    }
    res.redirect(303, `${settingsHref(at.repo, '/branches')}?done=rule-saved`);
  });

  pages.post(`${base}/:rule/delete`, async (req, res) => {
    const at = await adminRepo(web, req);
    const path = `${at.api}${apiPath`/branch_protections/${text(req.params.rule)}`}`;
    const refused = await attempt('rules', () => api.send(at.viewer, 'delete', path));
    if (refused) return showBranches(web, req, res, at, refused);
    res.redirect(303, `${settingsHref(at.repo, '/branches')}?done=rule-removed`);
  });
}
