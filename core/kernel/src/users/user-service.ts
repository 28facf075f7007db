import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ApiError, type KernelHooks, type Principal, type UserInfo, type Visibility } from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import { isUniqueViolation } from '../db/errors';
import { hashPassword, verifyPassword } from '../auth/password';
import { assertValidEmail, assertValidUserName } from './names';
import { GO_ZERO_TIME, UserEmailRow, UserRow, VISIBILITY_NAMES, nowUnix, unixToIso } from './models';

export interface CreateUserInput {
  name: string;
  email: string;
  password: string;
  fullName?: string;
  loginName?: string;
  sourceId?: number;
  mustChangePassword?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
  isAdmin?: boolean;
  createdAt?: Date;
}

export interface EditUserInput {
  sourceId?: number;
  loginName?: string;
  email?: string;
  fullName?: string;
  password?: string;
  mustChangePassword?: boolean;
  website?: string;
  location?: string;
  description?: string;
  active?: boolean;
  admin?: boolean;
  allowGitHook?: boolean;
  allowImportLocal?: boolean;
  maxRepoCreation?: number;
  prohibitLogin?: boolean;
  allowCreateOrganization?: boolean;
  restricted?: boolean;
  visibility?: Visibility;
  /** The settings a user changes for themself (`PATCH /user/settings`). */
  language?: string;
  theme?: string;
  diffViewStyle?: string;
  keepEmailPrivate?: boolean;
  keepActivityPrivate?: boolean;
}

/** Users and their email addresses: the one place that writes those tables and fires the user hooks. */
export class UserService {
  /** The row each principal was resolved from, so handlers need not read it again. */
  private readonly principalRows = new WeakMap<Principal, UserRow>();

  constructor(
    private readonly db: Knex,
    private readonly hooks: KernelHooks,
    private readonly config: HearthConfig,
    /** Cleared on every change to a user, so cached credentials never outlive it. */
    private readonly credentials: { clear(): void },
  ) {}

  /** Remember the row a principal was built from (auth taps call this). */
  rememberRow(principal: Principal, row: UserRow): Principal {
    this.principalRows.set(principal, row);
    return principal;
  }

  /** The caller's own row: the one authentication loaded, or a fresh read (e.g. after sudo). */
  async rowOf(principal: Principal): Promise<UserRow | undefined> {
    return this.principalRows.get(principal) ?? (await this.byId(principal.user.id));
  }

  query(trx: Knex | Knex.Transaction = this.db) {
    return UserRow.query(trx);
  }

  async byName(name: string): Promise<UserRow | undefined> {
    return UserRow.query(this.db).findOne({ lower_name: name.toLowerCase() });
  }

  async byId(id: number): Promise<UserRow | undefined> {
    return UserRow.query(this.db).findById(id);
  }

  /** The users of `ids` that exist, in one query. */
  async byIds(ids: readonly number[]): Promise<UserRow[]> {
    const unique = [...new Set(ids)];
    return unique.length ? UserRow.query(this.db).whereIn('id', unique) : [];
  }

  /** The individual account a source knows as `loginName`. */
  async byLogin(sourceId: number, loginName: string): Promise<UserRow | undefined> {
    return UserRow.query(this.db).findOne({ login_source: sourceId, login_name: loginName, type: 0 });
  }

  /** The individual account one of whose addresses is `email`, in any case. */
  async byEmail(email: string): Promise<UserRow | undefined> {
    return UserRow.query(this.db)
      .where('type', 0)
      .whereIn('id', (s) => s.select('uid').from('user_emails').where('lower_email', email.toLowerCase()))
      .first();
  }

  /** A user by name, or 404. */
  async require(name: string): Promise<UserRow> {
    const row = await this.byName(name);
    if (!row || row.type !== 0) throw ApiError.notFound(`user does not exist [name: ${name}]`);
    return row;
  }

  toInfo(row: UserRow): UserInfo {
    return {
      id: row.id,
      name: row.name,
      lowerName: row.lower_name,
      fullName: row.full_name,
      email: row.email,
      isAdmin: row.is_admin,
      isRestricted: row.is_restricted,
      isActive: row.is_active,
      prohibitLogin: row.prohibit_login,
      visibility: VISIBILITY_NAMES[row.visibility] ?? 'public',
      type: row.type,
      loginSource: Number(row.login_source),
      loginName: row.login_name,
    };
  }

  /** Gitea's `User` JSON: private details only for the user themself and site admins. */
  toApi(row: UserRow, viewer: Principal | null): Record<string, unknown> {
    const authed = viewer !== null && (viewer.user.isAdmin || viewer.user.id === row.id);
    const showEmail = viewer !== null && (!row.keep_email_private || authed);
    return {
      id: row.id,
      login: row.name,
      login_name: authed ? row.login_name : '',
      full_name: row.full_name,
      email: showEmail ? row.email : `${row.lower_name}@${this.config.service.NO_REPLY_ADDRESS}`,
      avatar_url: this.avatarUrl(row.email),
      language: authed ? row.language : '',
      is_admin: authed ? row.is_admin : false,
      last_login: authed && row.last_login_unix ? unixToIso(row.last_login_unix) : GO_ZERO_TIME,
      created: unixToIso(row.created_unix),
      restricted: row.is_restricted,
      active: authed ? row.is_active : false,
      prohibit_login: authed ? row.prohibit_login : false,
      location: row.location,
      website: row.website,
      description: row.description,
      visibility: VISIBILITY_NAMES[row.visibility] ?? 'public',
      followers_count: Number(row.num_followers ?? 0),
      following_count: Number(row.num_following ?? 0),
      starred_repos_count: 0,
      // Gitea 1.20 repeats `login` as `username` for clients written against older releases.
      username: row.name,
    };
  }

  avatarUrl(email: string): string {
    const hash = crypto.createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    return `${this.config.server.ROOT_URL}avatars/${hash}`;
  }

  async create(input: CreateUserInput, actor: UserInfo | null): Promise<UserRow> {
    assertValidUserName(input.name);
    assertValidEmail(input.email);
    this.assertPasswordAcceptable(input.password);
    return this.insert(input, await hashPassword(input.password, this.config.security.SCRYPT_COST), actor);
  }

  /**
   * An account whose source (OIDC, LDAP) vouches for it: no password hash, so the local password
   * check never matches it; it signs in through `login_source` only.
   */
  async createExternal(
    input: Omit<CreateUserInput, 'password'> & { sourceId: number; loginName: string },
    actor: UserInfo | null,
  ): Promise<UserRow> {
    assertValidUserName(input.name);
    assertValidEmail(input.email);
    return this.insert(input, '', actor);
  }

  private async insert(input: Omit<CreateUserInput, 'password'>, passwd: string, actor: UserInfo | null): Promise<UserRow> {
    const created = input.createdAt ? Math.floor(input.createdAt.getTime() / 1000) : nowUnix();
    const row = await this.uniquely(input.name, input.email, async () =>
      this.db.transaction(async (trx) => {
        await this.assertNameFree(trx, input.name);
        await this.assertEmailFree(trx, input.email);
        const user = await UserRow.query(trx).insertAndFetch({
          lower_name: input.name.toLowerCase(),
          name: input.name,
          full_name: input.fullName ?? '',
          email: input.email,
          keep_email_private: this.config.service.DEFAULT_KEEP_EMAIL_PRIVATE,
          passwd,
          must_change_password: input.mustChangePassword ?? false,
          login_source: input.sourceId ?? 0,
          login_name: input.loginName ?? '',
          visibility: VISIBILITY_NAMES.indexOf(input.visibility ?? this.config.service.DEFAULT_USER_VISIBILITY),
          is_admin: input.isAdmin ?? false,
          is_restricted: input.restricted ?? false,
          created_unix: created,
          updated_unix: created,
        } as Partial<UserRow>);
        await UserEmailRow.query(trx).insert({
          uid: user.id,
          email: input.email,
          lower_email: input.email.toLowerCase(),
          is_activated: true,
          is_primary: true,
        } as Partial<UserEmailRow>);
        return user;
      }),
    );
    await this.hooks.user.created.promise({ user: this.toInfo(row), actor });
    return row;
  }

  async edit(row: UserRow, input: EditUserInput, _actor: UserInfo | null): Promise<UserRow> {
    const patch: Partial<UserRow> = {};
    const set = <K extends keyof UserRow>(key: K, value: UserRow[K] | undefined) => {
      if (value !== undefined) patch[key] = value;
    };
    set('login_source', input.sourceId);
    set('login_name', input.loginName);
    set('full_name', input.fullName);
    set('website', input.website);
    set('location', input.location);
    set('description', input.description);
    set('must_change_password', input.mustChangePassword);
    set('is_active', input.active);
    set('is_admin', input.admin);
    set('allow_git_hook', input.allowGitHook);
    set('allow_import_local', input.allowImportLocal);
    set('max_repo_creation', input.maxRepoCreation);
    set('prohibit_login', input.prohibitLogin);
    set('allow_create_organization', input.allowCreateOrganization);
    set('is_restricted', input.restricted);
    set('language', input.language);
    set('theme', input.theme);
    set('diff_view_style', input.diffViewStyle);
    set('keep_email_private', input.keepEmailPrivate);
    set('keep_activity_private', input.keepActivityPrivate);
    if (input.visibility !== undefined) patch.visibility = VISIBILITY_NAMES.indexOf(input.visibility);
    if (input.password !== undefined && input.password !== '') {
      this.assertPasswordAcceptable(input.password);
      patch.passwd = await hashPassword(input.password, this.config.security.SCRYPT_COST);
    }
    if (input.admin === false && row.is_admin) await this.assertNotLastAdmin(row);
    const newEmail = input.email !== undefined && input.email.toLowerCase() !== row.email.toLowerCase() ? input.email : undefined;
    if (newEmail !== undefined) assertValidEmail(newEmail);
    await this.uniquely(row.name, newEmail ?? row.email, () =>
      this.db.transaction(async (trx) => {
        if (newEmail !== undefined) await this.makePrimaryEmail(trx, row, newEmail);
        await UserRow.query(trx)
          .patch({ ...patch, updated_unix: nowUnix() })
          .where('id', row.id);
      }),
    );
    this.credentials.clear();
    return (await this.byId(row.id))!;
  }

  /** Rename. A change of capitalization only rewrites the name column and fires nothing. */
  async rename(row: UserRow, newName: string, actor: UserInfo | null): Promise<void> {
    if (newName === row.name) return;
    const caseOnly = newName.toLowerCase() === row.lower_name;
    if (!caseOnly) assertValidUserName(newName);
    await this.uniquely(newName, row.email, () =>
      this.db.transaction(async (trx) => {
        if (!caseOnly) await this.assertNameFree(trx, newName);
        await UserRow.query(trx).patch({ name: newName, lower_name: newName.toLowerCase(), updated_unix: nowUnix() }).where('id', row.id);
      }),
    );
    this.credentials.clear();
    if (!caseOnly) {
      const renamed = (await this.byId(row.id))!;
      await this.hooks.user.renamed.promise({ user: this.toInfo(renamed), actor, oldName: row.name, newName });
    }
  }

  async delete(row: UserRow, purge: boolean, actor: UserInfo | null): Promise<void> {
    if (actor && actor.id === row.id) throw ApiError.unprocessable('you cannot delete yourself');
    if (row.is_admin) await this.assertNotLastAdmin(row);
    await this.db.transaction(async (trx) => {
      // Plugins remove (purge) or refuse on account of (no purge) what they own of this user.
      await this.hooks.user.deleting.promise({ user: this.toInfo(row), actor, purge, trx });
      await trx('access_tokens').where('uid', row.id).delete();
      await trx('user_emails').where('uid', row.id).delete();
      await trx('users').where('id', row.id).delete();
    });
    this.credentials.clear();
    await this.hooks.user.deleted.promise({ user: this.toInfo(row), actor });
  }

  /**
   * A user's own password change: the current password must match (403 otherwise) and the new one
   * meet `[security] MIN_PASSWORD_LENGTH` (400). Accounts of an external source have no local
   * password (422). Clears `must_change_password`.
   */
  async changePassword(row: UserRow, oldPassword: string, newPassword: string): Promise<void> {
    if (row.type !== 0 || Number(row.login_source) !== 0 || !row.passwd)
      throw ApiError.unprocessable('this account signs in through an external source and has no password here');
    if (!(await verifyPassword(oldPassword, row.passwd))) throw ApiError.forbidden('the current password is wrong');
    this.assertPasswordAcceptable(newPassword);
    const passwd = await hashPassword(newPassword, this.config.security.SCRYPT_COST);
    await UserRow.query(this.db).patch({ passwd, must_change_password: false, updated_unix: nowUnix() }).where('id', row.id);
    this.credentials.clear();
  }

  /** The user for a name (or primary email) and password, or null; the same work whether or not the name exists. */
  async verifyLogin(name: string, password: string): Promise<UserRow | null> {
    const row = (await this.byName(name)) ?? (await UserRow.query(this.db).findOne({ email: name }));
    const ok = await verifyPassword(password, row?.passwd || DUMMY_HASH);
    if (!row || row.type !== 0 || !ok) return null;
    // Sign-ins feed nodeinfo's active-user counts; at most one write a minute per user.
    const now = nowUnix();
    if (now - row.last_login_unix > 60) await UserRow.query(this.db).patch({ last_login_unix: now }).where('id', row.id);
    return row;
  }

  /** Individual accounts: all, and those who signed in within the last 180 and 30 days. */
  async stats(): Promise<{ total: number; activeHalfyear: number; activeMonth: number }> {
    const now = nowUnix();
    const count = async (since: number) => {
      const [{ n }] = await this.db('users').where('type', 0).where('last_login_unix', '>=', since).count<{ n: number }[]>({ n: '*' });
      return Number(n);
    };
    const [total, activeHalfyear, activeMonth] = await Promise.all([count(0), count(now - 180 * 86400), count(now - 30 * 86400)]);
    return { total, activeHalfyear, activeMonth };
  }

  // --- email addresses ------------------------------------------------------------------------

  async emails(uid: number): Promise<UserEmailRow[]> {
    return UserEmailRow.query(this.db).where('uid', uid).orderBy('id');
  }

  async addEmails(row: UserRow, emails: string[]): Promise<UserEmailRow[]> {
    const unique = [...new Map(emails.map((e) => [e.toLowerCase(), e])).values()];
    unique.forEach(assertValidEmail);
    return this.uniquely(row.name, unique.join(','), () =>
      this.db.transaction(async (trx) => {
        const added: UserEmailRow[] = [];
        for (const email of unique) {
          await this.assertEmailFree(trx, email);
          added.push(
            await UserEmailRow.query(trx).insertAndFetch({
              uid: row.id,
              email,
              lower_email: email.toLowerCase(),
              is_activated: true,
              is_primary: false,
            } as Partial<UserEmailRow>),
          );
        }
        return added;
      }),
    );
  }

  async deleteEmails(row: UserRow, emails: string[]): Promise<void> {
    await this.db.transaction(async (trx) => {
      for (const email of emails) {
        const found = await UserEmailRow.query(trx).findOne({ uid: row.id, lower_email: email.toLowerCase() });
        if (!found) throw ApiError.notFound(`email address does not exist [email: ${email}]`);
        if (found.is_primary) throw ApiError.badRequest(`the primary email address cannot be deleted [email: ${email}]`);
        await UserEmailRow.query(trx).deleteById(found.id);
      }
    });
  }

  emailToApi(email: UserEmailRow, owner: { id: number; name: string }): Record<string, unknown> {
    return { email: email.email, verified: email.is_activated, primary: email.is_primary, user_id: owner.id, username: owner.name };
  }

  // --- checks -----------------------------------------------------------------------------------

  private assertPasswordAcceptable(password: string): void {
    const min = this.config.security.MIN_PASSWORD_LENGTH;
    if (password.length < min) throw ApiError.badRequest(`password is too short: at least ${min} characters`);
  }

  private async assertNameFree(trx: Knex.Transaction, name: string): Promise<void> {
    const taken = await trx('users').where('lower_name', name.toLowerCase()).first('id');
    if (taken) throw ApiError.unprocessable(`user already exists [name: ${name}]`);
  }

  private async assertEmailFree(trx: Knex.Transaction, email: string): Promise<void> {
    const taken = await trx('user_emails').where('lower_email', email.toLowerCase()).first('id');
    if (taken) throw ApiError.unprocessable(`e-mail already in use [email: ${email}]`);
  }

  private async assertNotLastAdmin(row: UserRow): Promise<void> {
    const others = await this.db('users').where({ is_admin: true, type: 0 }).whereNot('id', row.id).count<{ n: number }[]>({ n: '*' });
    if (Number(others[0].n) === 0) throw ApiError.unprocessable('the last site administrator cannot be removed or demoted');
  }

  private async makePrimaryEmail(trx: Knex.Transaction, row: UserRow, email: string): Promise<void> {
    const existing = await UserEmailRow.query(trx).findOne({ lower_email: email.toLowerCase() });
    if (existing && existing.uid !== row.id) throw ApiError.unprocessable(`e-mail already in use [email: ${email}]`);
    await UserEmailRow.query(trx).patch({ is_primary: false }).where('uid', row.id);
    if (existing) await UserEmailRow.query(trx).patch({ is_primary: true, email }).where('id', existing.id);
    else {
      await UserEmailRow.query(trx).insert({
        uid: row.id,
        email,
        lower_email: email.toLowerCase(),
        is_activated: true,
        is_primary: true,
      } as Partial<UserEmailRow>);
    }
    await UserRow.query(trx).patch({ email }).where('id', row.id);
  }

  /** Two concurrent requests can both pass the "is it free" check; the unique index decides, and the loser gets the same 422. */
  private async uniquely<T>(name: string, email: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (isUniqueViolation(err)) throw ApiError.unprocessable(`user name or e-mail already in use [name: ${name}, email: ${email}]`);
      throw err;
    }
  }
}

/** Verified against when the user does not exist, so a missing name costs the same time as a wrong password. */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
