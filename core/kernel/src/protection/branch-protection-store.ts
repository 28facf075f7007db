import type { Knex } from 'knex';
import { ApiError } from '@hearth/plugin-api';
import { isUniqueViolation } from '../db/errors';
import { nowUnix, unixToIso } from '../users/models';
import { insertId } from '../orgs/org-store';

type Db = Knex | Knex.Transaction;

/** A row of `protected_branch` (Gitea's table): one rule, named by a branch name or a glob. */
export interface ProtectedBranchRow {
  id: number;
  repo_id: number;
  rule_name: string;
  can_push: boolean;
  enable_whitelist: boolean;
  whitelist_user_ids: number[];
  whitelist_team_ids: number[];
  whitelist_deploy_keys: boolean;
  enable_merge_whitelist: boolean;
  merge_whitelist_user_ids: number[];
  merge_whitelist_team_ids: number[];
  enable_status_check: boolean;
  status_check_contexts: string[];
  enable_approvals_whitelist: boolean;
  approvals_whitelist_user_ids: number[];
  approvals_whitelist_team_ids: number[];
  required_approvals: number;
  block_on_rejected_reviews: boolean;
  block_on_official_review_requests: boolean;
  block_on_outdated_branch: boolean;
  dismiss_stale_approvals: boolean;
  require_signed_commits: boolean;
  protected_file_patterns: string;
  unprotected_file_patterns: string;
  created_unix: number;
  updated_unix: number;
}

const JSON_COLUMNS = [
  'whitelist_user_ids',
  'whitelist_team_ids',
  'merge_whitelist_user_ids',
  'merge_whitelist_team_ids',
  'status_check_contexts',
  'approvals_whitelist_user_ids',
  'approvals_whitelist_team_ids',
] as const;
const BOOL_COLUMNS = [
  'can_push',
  'enable_whitelist',
  'whitelist_deploy_keys',
  'enable_merge_whitelist',
  'enable_status_check',
  'enable_approvals_whitelist',
  'block_on_rejected_reviews',
  'block_on_official_review_requests',
  'block_on_outdated_branch',
  'dismiss_stale_approvals',
  'require_signed_commits',
] as const;

const parseList = (v: unknown): any[] => {
  if (Array.isArray(v)) return v;
  try {
    const parsed = JSON.parse(String(v ?? '[]'));
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
};

export function toProtectedBranch(raw: Record<string, any>): ProtectedBranchRow {
  const row: Record<string, unknown> = { ...raw };
  for (const c of ['id', 'repo_id', 'required_approvals', 'created_unix', 'updated_unix']) row[c] = Number(raw[c] ?? 0);
  for (const c of BOOL_COLUMNS) row[c] = raw[c] === true || raw[c] === 1 || raw[c] === '1';
  for (const c of JSON_COLUMNS) row[c] = parseList(raw[c]).map((x) => (c === 'status_check_contexts' ? String(x) : Number(x)));
  row.protected_file_patterns = String(raw.protected_file_patterns ?? '');
  row.unprotected_file_patterns = String(raw.unprotected_file_patterns ?? '');
  return row as unknown as ProtectedBranchRow;
}

function toColumns(row: Partial<ProtectedBranchRow>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...row };
  for (const c of JSON_COLUMNS) if (c in out) out[c] = JSON.stringify(out[c] ?? []);
  return out;
}

/** Gitea treats a rule name containing one of these as a glob (IsRuleNameSpecial). */
export function isGlobRule(name: string): boolean {
  return /[*?[\]{}\\]/.test(name);
}

/**
 * A rule name as a regular expression valid both in JavaScript and in POSIX ERE (the pre-receive
 * hook matches with grep -E), anchored. Glob syntax as Gitea's (gobwas/glob with '/' as the
 * separator): `*` any run without '/', `**` anything, `?` one character but '/', `{a,b}`
 * alternatives, `[abc]`/`[!abc]`/`[a-z]` classes, `\x` a literal x.
 */
export function ruleRegex(name: string): string {
  let out = '';
  let depth = 0;
  const literal = (ch: string) => (/[A-Za-z0-9_\-/]/.test(ch) || !/[ -~]/.test(ch) ? ch : '\\^[]'.includes(ch) ? `\\${ch}` : `[${ch}]`);
  for (let i = 0; i < name.length; i++) {
    const ch = name[i];
    if (ch === '*') {
      if (name[i + 1] === '*') {
        out += '.*';
        i++;
      } else out += '[^/]*';
    } else if (ch === '?') out += '[^/]';
    else if (ch === '\\' && i + 1 < name.length) out += literal(name[++i]);
    else if (ch === '{') {
      depth++;
      out += '(';
    } else if (ch === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (ch === ',' && depth > 0) out += '|';
    else if (ch === '[') {
      const end = name.indexOf(']', i + 2);
      const body = end > 0 ? name.slice(i + 1, end) : '';
      if (end > 0 && /^!?[A-Za-z0-9_.\-/]+$/.test(body)) {
        out += body.startsWith('!') ? `[^${body.slice(1)}]` : `[${body}]`;
        i = end;
      } else out += literal(ch);
    } else out += literal(ch);
  }
  while (depth-- > 0) out += ')';
  return `^(${out})$`;
}

/** The anchored regular expression of any rule (a plain name matches itself only), for the pre-receive hook. */
export function ruleMatcher(rule: { rule_name: string }): string {
  return ruleRegex(isGlobRule(rule.rule_name) ? rule.rule_name : rule.rule_name.replace(/[*?[\]{}\\]/g, '\\$&'));
}

/** Whether a rule applies to a branch. */
export function ruleMatches(rule: { rule_name: string }, branch: string): boolean {
  if (!isGlobRule(rule.rule_name)) return rule.rule_name === branch;
  try {
    return new RegExp(ruleRegex(rule.rule_name)).test(branch);
  } catch {
    return false;
  }
}

/** Rules (oldest first) in the order they are tried on a branch: exact names, then globs (Gitea 1.20). */
export function inPrecedence<T extends { rule_name: string }>(rules: T[]): T[] {
  return [...rules.filter((r) => !isGlobRule(r.rule_name)), ...rules.filter((r) => isGlobRule(r.rule_name))];
}

/** The rule that governs a branch: an exact rule first, then the oldest matching glob. */
export function firstMatchingRule<T extends { rule_name: string }>(rules: T[], branch: string): T | undefined {
  return inPrecedence(rules).find((r) => ruleMatches(r, branch));
}

/** Rules of a repository, oldest first. */
export async function listRules(db: Db, repoId: number): Promise<ProtectedBranchRow[]> {
  const rows = await db('protected_branch').where('repo_id', repoId).orderBy('id', 'asc');
  return rows.map(toProtectedBranch);
}

export async function ruleByName(db: Db, repoId: number, name: string): Promise<ProtectedBranchRow | undefined> {
  const raw = await db('protected_branch').where({ repo_id: repoId, rule_name: name }).first();
  return raw ? toProtectedBranch(raw) : undefined;
}

/** The rule governing a branch, if any. */
export async function ruleForBranch(db: Db, repoId: number, branch: string): Promise<ProtectedBranchRow | undefined> {
  return firstMatchingRule(await listRules(db, repoId), branch);
}

export type RuleFields = Omit<ProtectedBranchRow, 'id' | 'repo_id' | 'rule_name' | 'created_unix' | 'updated_unix'>;

export async function insertRule(db: Knex, repoId: number, name: string, fields: RuleFields): Promise<ProtectedBranchRow> {
  const now = nowUnix();
  try {
    const id = await insertId(
      db,
      'protected_branch',
      toColumns({ ...fields, repo_id: repoId, rule_name: name, created_unix: now, updated_unix: now }),
    );
    return toProtectedBranch(await db('protected_branch').where('id', id).first());
  } catch (err) {
    if (isUniqueViolation(err)) throw ApiError.forbidden(`Branch protection already exist [rule_name: ${name}]`);
    throw err;
  }
}

export async function updateRule(db: Knex, id: number, fields: Partial<RuleFields>): Promise<ProtectedBranchRow> {
  await db('protected_branch')
    .where('id', id)
    .update(toColumns({ ...fields, updated_unix: nowUnix() }));
  return toProtectedBranch(await db('protected_branch').where('id', id).first());
}

export async function deleteRule(db: Db, id: number): Promise<void> {
  await db('protected_branch').where('id', id).delete();
}

/** Ids of the teams among `teamIds` that `uid` belongs to (any). */
async function inTeams(db: Db, teamIds: number[], uid: number): Promise<boolean> {
  if (teamIds.length === 0) return false;
  return Boolean(await db('team_users').whereIn('team_id', teamIds).where('uid', uid).first('id'));
}

/** Gitea's CanUserPush for a user who has write access to the code: the rule's push switch and whitelist. */
export async function canPushUnderRule(db: Db, rule: ProtectedBranchRow, uid: number): Promise<boolean> {
  if (!rule.can_push) return false;
  if (!rule.enable_whitelist) return true;
  return rule.whitelist_user_ids.includes(uid) || (await inTeams(db, rule.whitelist_team_ids, uid));
}

/** Gitea's IsUserMergeWhitelisted for a user with write access. */
export async function canMergeUnderRule(db: Db, rule: ProtectedBranchRow, uid: number): Promise<boolean> {
  if (!rule.enable_merge_whitelist) return true;
  return rule.merge_whitelist_user_ids.includes(uid) || (await inTeams(db, rule.merge_whitelist_team_ids, uid));
}

/** Whether an approval by `uid` counts toward required approvals (Gitea's IsUserOfficialReviewer). */
export async function isOfficialReviewer(db: Db, rule: ProtectedBranchRow, uid: number, hasWrite: boolean): Promise<boolean> {
  if (!rule.enable_approvals_whitelist) return hasWrite;
  return rule.approvals_whitelist_user_ids.includes(uid) || (await inTeams(db, rule.approvals_whitelist_team_ids, uid));
}

export const isoOrEpoch = (unix: number) => unixToIso(unix);
