import { ApiError, type Principal } from '@hearth/plugin-api';
import type { RepoService } from '../repos/repo-service';
import type { RepositoryRow } from '../repos/models';
import {
  canPushUnderRule,
  firstMatchingRule,
  inPrecedence,
  listRules,
  ruleMatcher,
  type ProtectedBranchRow,
} from './branch-protection-store';

/** How a change moves a ref: a new ref, a fast-forward, a rewrite of its history, or its removal. */
export type RefChange = 'create' | 'update' | 'force' | 'delete';
/** In the order of HEARTH_REF_RULES' columns. */
const CHANGES: RefChange[] = ['create', 'update', 'force', 'delete'];

export interface RefVerdict {
  allowed: boolean;
  /** Why not, naming the branch ('' when allowed). */
  reason: string;
  /** The protected branch rule that decided (null: no rule governs the ref). */
  rule: string | null;
}

type Protection = Pick<RepoService, 'access' | 'query'>;

const HEADS = 'refs/heads/';
const ALLOWED: RefVerdict = { allowed: true, reason: '', rule: null };

/**
 * Gitea 1.20's CanUserPush: the rule's push switch, then its whitelist (users and teams), or
 * without a whitelist write access to the code. Site and repository admins get no exception.
 */
async function mayPush(
  protection: Protection,
  repo: RepositoryRow,
  rule: ProtectedBranchRow,
  principal: Principal | null,
): Promise<boolean> {
  if (!principal || !(await canPushUnderRule(protection.query().knex(), rule, principal.user.id))) return false;
  if (rule.enable_whitelist) return true;
  const code = await protection.access.unitPermission(repo, principal, 'code');
  return code === 'write' || code === 'admin';
}

/**
 * What a protected branch rule lets the principal do with a branch it governs, per kind of change:
 * null when allowed, else why not (to follow "branch <name> "). As Gitea's pre-receive: a protected
 * branch is never deleted nor force-pushed; created and fast-forwarded only by who may push.
 */
async function ruleVerdicts(
  protection: Protection,
  repo: RepositoryRow,
  rule: ProtectedBranchRow,
  principal: Principal | null,
): Promise<Record<RefChange, string | null>> {
  const push = (await mayPush(protection, repo, rule, principal))
    ? null
    : 'is protected: you are not allowed to push to it; open a pull request instead';
  return { create: push, update: push, force: 'is protected from force push', delete: 'is protected: it cannot be deleted' };
}

/**
 * THE rule for moving refs of a repository: may `principal` make `change` to `ref` (a full ref
 * name)? Protected branch rules decide for branches (the exact rule, else the oldest matching glob);
 * Hearth has no protected tags, so other refs are not restricted here. Git pushes ask it through
 * pushRulesEnv; the contents API, branch creation and deletion, pull request updates and the
 * deletion of a merged head branch ask it directly. Access to the repository is checked before.
 */
export async function refChangeVerdict(
  protection: Protection,
  repo: RepositoryRow,
  principal: Principal | null,
  ref: string,
  change: RefChange,
): Promise<RefVerdict> {
  if (!ref.startsWith(HEADS)) return ALLOWED;
  const branch = ref.slice(HEADS.length);
  const rule = firstMatchingRule(await listRules(protection.query().knex(), repo.id), branch);
  if (!rule) return ALLOWED;
  const refusal = (await ruleVerdicts(protection, repo, rule, principal))[change];
  return refusal ? { allowed: false, reason: `branch ${branch} ${refusal}`, rule: rule.rule_name } : { ...ALLOWED, rule: rule.rule_name };
}

/** refChangeVerdict for API routes: 403 when refused. */
export async function assertRefChange(
  protection: Protection,
  repo: RepositoryRow,
  principal: Principal | null,
  ref: string,
  change: RefChange,
): Promise<void> {
  const verdict = await refChangeVerdict(protection, repo, principal, ref, change);
  if (!verdict.allowed) throw ApiError.forbidden(`${verdict.reason} [protected branch rule: ${verdict.rule}]`);
}

/**
 * refChangeVerdict's answers for a whole push, for the pre-receive hook (HEARTH_REF_RULES, see
 * repos/server-hooks.ts), which can only tell the kinds of change apart: one line per rule in
 * precedence order, `<regex>\t<create>\t<update>\t<force>\t<delete>`,
 * each verdict `ok` or why not (to follow "branch <name> ").
 */
export async function pushRulesEnv(protection: Protection, repo: RepositoryRow, principal: Principal | null): Promise<string> {
  const lines: string[] = [];
  for (const rule of inPrecedence(await listRules(protection.query().knex(), repo.id))) {
    // A name with control characters matches no branch (git refuses them) and would break the lines.
    if (/[\x00-\x1f]/.test(rule.rule_name)) continue;
    const verdicts = await ruleVerdicts(protection, repo, rule, principal);
    lines.push([ruleMatcher(rule), ...CHANGES.map((c) => verdicts[c] ?? 'ok')].join('\t'));
  }
  return lines.join('\n');
}
