import type { Knex } from 'knex';
import { ApiError } from '@hearth/plugin-api';
import type { KernelServices } from '../kernel-services';
import type { ResolvedRepo } from '../repos/repo-service';
import type { UserService } from '../users/user-service';
import { unixToIso } from '../users/models';
import type { ProtectedBranchRow, RuleFields } from './branch-protection-store';

/* Between Gitea's branch protection JSON and the rule rows: option bodies to columns, rows to BranchProtection. */

/** CreateBranchProtectionOption / EditBranchProtectionOption (Gitea 1.20). */
export interface ProtectionBody {
  branch_name?: string;
  rule_name?: string;
  enable_push?: boolean;
  enable_push_whitelist?: boolean;
  push_whitelist_usernames?: string[];
  push_whitelist_teams?: string[];
  push_whitelist_deploy_keys?: boolean;
  enable_merge_whitelist?: boolean;
  merge_whitelist_usernames?: string[];
  merge_whitelist_teams?: string[];
  enable_status_check?: boolean;
  status_check_contexts?: string[];
  required_approvals?: number;
  enable_approvals_whitelist?: boolean;
  approvals_whitelist_username?: string[];
  approvals_whitelist_teams?: string[];
  block_on_rejected_reviews?: boolean;
  block_on_official_review_requests?: boolean;
  block_on_outdated_branch?: boolean;
  dismiss_stale_approvals?: boolean;
  require_signed_commits?: boolean;
  protected_file_patterns?: string;
  unprotected_file_patterns?: string;
}

const SIMPLE_FIELDS: Array<[keyof ProtectionBody, keyof RuleFields]> = [
  ['enable_push', 'can_push'],
  ['enable_push_whitelist', 'enable_whitelist'],
  ['push_whitelist_deploy_keys', 'whitelist_deploy_keys'],
  ['enable_merge_whitelist', 'enable_merge_whitelist'],
  ['enable_status_check', 'enable_status_check'],
  ['required_approvals', 'required_approvals'],
  ['enable_approvals_whitelist', 'enable_approvals_whitelist'],
  ['block_on_rejected_reviews', 'block_on_rejected_reviews'],
  ['block_on_official_review_requests', 'block_on_official_review_requests'],
  ['block_on_outdated_branch', 'block_on_outdated_branch'],
  ['dismiss_stale_approvals', 'dismiss_stale_approvals'],
  ['require_signed_commits', 'require_signed_commits'],
  ['protected_file_patterns', 'protected_file_patterns'],
  ['unprotected_file_patterns', 'unprotected_file_patterns'],
];

/** A new rule's columns before its body is applied. */
export const EMPTY_RULE: RuleFields = {
  can_push: false,
  enable_whitelist: false,
  whitelist_user_ids: [],
  whitelist_team_ids: [],
  whitelist_deploy_keys: false,
  enable_merge_whitelist: false,
  merge_whitelist_user_ids: [],
  merge_whitelist_team_ids: [],
  enable_status_check: false,
  status_check_contexts: [],
  enable_approvals_whitelist: false,
  approvals_whitelist_user_ids: [],
  approvals_whitelist_team_ids: [],
  required_approvals: 0,
  block_on_rejected_reviews: false,
  block_on_official_review_requests: false,
  block_on_outdated_branch: false,
  dismiss_stale_approvals: false,
  require_signed_commits: false,
  protected_file_patterns: '',
  unprotected_file_patterns: '',
};

/** User ids for names; 422 naming the first unknown one. */
async function userIds(users: UserService, names: string[] | undefined): Promise<number[]> {
  const ids: number[] = [];
  for (const name of new Set(names ?? [])) {
    const row = await users.byName(name);
    if (!row || row.type !== 0) throw ApiError.unprocessable(`user does not exist [name: ${name}]`);
    ids.push(row.id);
  }
  return ids;
}

/** Team ids of the owning organization for names; 422 for unknown teams (teams exist only in organizations). */
async function teamIds(db: Knex, r: ResolvedRepo, names: string[] | undefined): Promise<number[]> {
  const ids: number[] = [];
  for (const name of new Set(names ?? [])) {
    const row =
      r.owner.type === 1 ? await db('teams').where({ org_id: r.owner.id, lower_name: name.toLowerCase() }).first('id') : undefined;
    if (!row) throw ApiError.unprocessable(`team does not exist [name: ${name}]`);
    ids.push(Number(row.id));
  }
  return ids;
}

/** The rule columns a body sets (only what it names). */
export async function ruleFieldsOf(
  { db, users }: Pick<KernelServices, 'db' | 'users'>,
  r: ResolvedRepo,
  body: ProtectionBody,
): Promise<Partial<RuleFields>> {
  const out: Partial<RuleFields> = {};
  for (const [from, to] of SIMPLE_FIELDS) if (body[from] !== undefined) (out as Record<string, unknown>)[to] = body[from];
  if (body.push_whitelist_usernames !== undefined) out.whitelist_user_ids = await userIds(users, body.push_whitelist_usernames);
  if (body.merge_whitelist_usernames !== undefined) out.merge_whitelist_user_ids = await userIds(users, body.merge_whitelist_usernames);
  if (body.approvals_whitelist_username !== undefined)
    out.approvals_whitelist_user_ids = await userIds(users, body.approvals_whitelist_username);
  if (body.push_whitelist_teams !== undefined) out.whitelist_team_ids = await teamIds(db, r, body.push_whitelist_teams);
  if (body.merge_whitelist_teams !== undefined) out.merge_whitelist_team_ids = await teamIds(db, r, body.merge_whitelist_teams);
  if (body.approvals_whitelist_teams !== undefined) out.approvals_whitelist_team_ids = await teamIds(db, r, body.approvals_whitelist_teams);
  if (body.status_check_contexts !== undefined) out.status_check_contexts = [...new Set(body.status_check_contexts)];
  return out;
}

/** User names for ids, in order; ids of deleted users are left out. */
async function userNames(db: Knex, ids: number[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db('users').whereIn('id', ids).select('id', 'name');
  const byId = new Map(rows.map((u: { id: number; name: string }) => [Number(u.id), String(u.name)]));
  return ids.map((id) => byId.get(id)).filter((n): n is string => !!n);
}

/** Team names for ids, in order; ids of deleted teams are left out. */
async function teamNames(db: Knex, ids: number[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db('teams').whereIn('id', ids).select('id', 'name');
  const byId = new Map(rows.map((t: { id: number; name: string }) => [Number(t.id), String(t.name)]));
  return ids.map((id) => byId.get(id)).filter((n): n is string => !!n);
}

/** Gitea's BranchProtection JSON. */
export async function ruleJson(db: Knex, rule: ProtectedBranchRow): Promise<Record<string, unknown>> {
  return {
    branch_name: rule.rule_name,
    rule_name: rule.rule_name,
    enable_push: rule.can_push,
    enable_push_whitelist: rule.enable_whitelist,
    push_whitelist_usernames: await userNames(db, rule.whitelist_user_ids),
    push_whitelist_teams: await teamNames(db, rule.whitelist_team_ids),
    push_whitelist_deploy_keys: rule.whitelist_deploy_keys,
    enable_merge_whitelist: rule.enable_merge_whitelist,
    merge_whitelist_usernames: await userNames(db, rule.merge_whitelist_user_ids),
    merge_whitelist_teams: await teamNames(db, rule.merge_whitelist_team_ids),
    enable_status_check: rule.enable_status_check,
    status_check_contexts: rule.status_check_contexts,
    required_approvals: rule.required_approvals,
    enable_approvals_whitelist: rule.enable_approvals_whitelist,
    approvals_whitelist_username: await userNames(db, rule.approvals_whitelist_user_ids),
    approvals_whitelist_teams: await teamNames(db, rule.approvals_whitelist_team_ids),
    block_on_rejected_reviews: rule.block_on_rejected_reviews,
    block_on_official_review_requests: rule.block_on_official_review_requests,
    block_on_outdated_branch: rule.block_on_outdated_branch,
    dismiss_stale_approvals: rule.dismiss_stale_approvals,
    require_signed_commits: rule.require_signed_commits,
    protected_file_patterns: rule.protected_file_patterns,
    unprotected_file_patterns: rule.unprotected_file_patterns,
    created_at: unixToIso(rule.created_unix),
    updated_at: unixToIso(rule.updated_unix),
  };
}
