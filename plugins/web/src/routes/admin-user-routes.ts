import type { Request, Response } from 'express';
import { h } from 'preact';
import { ApiError } from '@hearth/plugin-api';
import type { WebRoutes } from '../web-routes';
import { apiPath } from '../forge-api';
import { viewerOf, type PageViewer } from '../page-session';
import { pageNumber } from './home-routes';
import { ADMIN_PAGE_SIZE, adminPage, requireAdmin, sendWithQuery } from './admin-parts';
import { formRefusal } from './org-parts';
import { text } from './route-parts';
import {
  AdminEditUserPage,
  AdminNewUserPage,
  AdminUsersPage,
  type AdminEditUserProps,
  type AdminUserJson,
  type EditUserForm,
  type NewUserForm,
  type UserSearch,
} from '../views/admin-user-pages';
import { visibilityOf } from '../views/org-admin-parts';

const NOTICES: Record<string, string> = {
  created: 'The user account was created.',
  saved: 'The user account was updated.',
  renamed: 'The user was renamed.',
  deleted: 'The user account was deleted.',
};

/** A source ID as typed: digits only ('' when empty or not a number). */
const sourceIdOf = (value: unknown) => (/^\d{1,9}$/.test(text(value).trim()) ? text(value).trim() : '');

/** `/admin/users/{id}`: the account with that ID as the API shows it to a site admin (404 when none). */
async function userById(web: WebRoutes, viewer: PageViewer, raw: unknown): Promise<AdminUserJson> {
  const id = Number(raw);
  if (!/^\d{1,10}$/.test(String(raw)) || id < 1) throw ApiError.notFound();
  await requireAdmin(web, viewer);
  const found = await web.api.get<{ data: AdminUserJson[] }>(viewer, '/users/search', { uid: id, limit: 1 });
  const user = (found.data ?? []).find((u) => u.id === id);
  if (!user) throw ApiError.notFound(`user does not exist [id: ${id}]`);
  return user;
}

function editFormOf(user: AdminUserJson): EditUserForm {
  return {
    email: user.email,
    full_name: user.full_name,
    login_name: user.login_name,
    source_id: '',
    website: user.website,
    location: user.location,
    description: user.description,
    visibility: user.visibility,
    must_change_password: false,
    active: user.active,
    admin: user.is_admin,
    restricted: user.restricted,
    prohibit_login: user.prohibit_login,
  };
}

function sentEditForm(body: Record<string, unknown>): EditUserForm {
  return {
    email: text(body.email).trim(),
    full_name: text(body.full_name, 100),
    login_name: text(body.login_name).trim(),
    source_id: sourceIdOf(body.source_id),
    website: text(body.website).trim(),
    location: text(body.location, 50),
    description: text(body.description),
    visibility: visibilityOf(body.visibility),
    must_change_password: body.must_change_password === 'on',
    active: body.active === 'on',
    admin: body.admin === 'on',
    restricted: body.restricted === 'on',
    prohibit_login: body.prohibit_login === 'on',
  };
}

/** `created_at` from a `datetime-local` field, read as UTC; undefined when empty, null when not a time. */
function createdAtOf(value: string): string | undefined | null {
  if (!value) return undefined;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return null;
  const date = new Date(`${value.length === 16 ? `${value}:00` : value}Z`);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/**
 * `/admin/users` (search by name through `/users/search`, by login name and source through
 * `/admin/users`), `/admin/users/new`, `/admin/users/{id}` (also at `/edit`: edit), and its
 * `/rename` and `/delete` forms.
 */
export function adminUserRoutes(web: WebRoutes): void {
  listRoutes(web);
  createRoutes(web);
  editRoutes(web);
}

function listRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  pages.get(
    '/admin/users',
    adminPage(async (req, res, viewer) => {
      const search: UserSearch = {
        q: text(req.query.q, 100).trim(),
        login_name: text(req.query.login_name).trim(),
        source_id: sourceIdOf(req.query.source_id),
      };
      const page = pageNumber(req);
      const paging = { page, limit: ADMIN_PAGE_SIZE };
      let users: AdminUserJson[];
      let total: number;
      if (search.q && !search.login_name && !search.source_id) {
        await requireAdmin(web, viewer);
        const found = await api.list(viewer, '/users/search', { ...paging, q: search.q });
        users = ((found.items as unknown as { data?: AdminUserJson[] }).data ?? []) as AdminUserJson[];
        total = found.total;
      } else {
        const filters = {
          ...(search.login_name ? { login_name: search.login_name } : {}),
          ...(search.source_id ? { source_id: Number(search.source_id) } : {}),
        };
        ({ items: users, total } = await api.list<AdminUserJson>(viewer, '/admin/users', { ...paging, ...filters }));
      }
      const notice = NOTICES[String(req.query.done)];
      renderer.send(res, h(AdminUsersPage, { kit: renderer.kit(req), search, users, page, limit: ADMIN_PAGE_SIZE, total, notice }));
    }),
  );
}

function createRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const render = (req: Request, res: Response, form: NewUserForm, error?: string, status = 200) =>
    renderer.send(res, h(AdminNewUserPage, { kit: renderer.kit(req), form, error }), status);

  pages.get(
    '/admin/users/new',
    adminPage(async (req, res, viewer) => {
      await requireAdmin(web, viewer);
      const form: NewUserForm = {
        user_name: '',
        email: '',
        full_name: '',
        login_name: '',
        source_id: '',
        visibility: 'public',
        must_change_password: true,
        restricted: false,
        created_at: '',
      };
      render(req, res, form);
    }),
  );

  pages.post('/admin/users/new', async (req, res) => {
    const viewer = viewerOf(req);
    const body = req.body ?? {};
    const form: NewUserForm = {
      user_name: text(body.user_name, 40).trim(),
      email: text(body.email).trim(),
      full_name: text(body.full_name, 100),
      login_name: text(body.login_name).trim(),
      source_id: sourceIdOf(body.source_id),
      visibility: visibilityOf(body.visibility),
      must_change_password: body.must_change_password === 'on',
      restricted: body.restricted === 'on',
      created_at: text(body.created_at, 32).trim(),
    };
    const createdAt = createdAtOf(form.created_at);
    try {
      if (createdAt === null) {
        await requireAdmin(web, viewer);
        return render(req, res, form, 'The creation time is not a date and time.', 422);
      }
      const user = await api.send<AdminUserJson>(viewer, 'post', '/admin/users', {
        username: form.user_name,
        email: form.email,
        password: text(body.password),
        full_name: form.full_name,
        must_change_password: form.must_change_password,
        restricted: form.restricted,
        visibility: form.visibility,
        ...(form.login_name ? { login_name: form.login_name } : {}),
        ...(form.source_id ? { source_id: Number(form.source_id) } : {}),
        ...(createdAt ? { created_at: createdAt } : {}),
      });
      res.redirect(303, `/admin/users/${user.id}?done=created`);
    } catch (err) {
      if (!formRefusal(err)) throw err;
      render(req, res, form, err.message, err.status);
    }
  });
}

function editRoutes(web: WebRoutes): void {
  const { api, pages, renderer } = web;
  const render = async (req: Request, res: Response, props: Omit<AdminEditUserProps, 'kit' | 'facts'>, status = 200) => {
    const facts = (await Promise.all(web.adminUserFacts.map((fact) => fact(props.user.id)))).filter((f): f is string => !!f);
    renderer.send(res, h(AdminEditUserPage, { kit: renderer.kit(req), facts, ...props }), status);
  };
  const back = (user: AdminUserJson, done: string) => `/admin/users/${user.id}?done=${done}`;

  const show = adminPage(async (req, res, viewer) => {
    const user = await userById(web, viewer, req.params.id);
    await render(req, res, { user, form: editFormOf(user), notice: NOTICES[String(req.query.done)] });
  });
  pages.get('/admin/users/:id', show);
  pages.get('/admin/users/:id/edit', show);

  const save = async (req: Request, res: Response) => {
    const viewer = viewerOf(req);
    const user = await userById(web, viewer, req.params.id);
    const form = sentEditForm(req.body ?? {});
    const password = text(req.body.password);
    const { source_id, ...fields } = form;
    try {
      await api.send(viewer, 'patch', apiPath`/admin/users/${user.login}`, {
        ...fields,
        ...(source_id ? { source_id: Number(source_id) } : {}),
        ...(password ? { password } : {}),
      });
      res.redirect(303, back(user, 'saved'));
    } catch (err) {
      if (!formRefusal(err)) throw err;
      await render(req, res, { user, form, error: err.message }, err.status);
    }
  };
  pages.post('/admin/users/:id', save);
  pages.post('/admin/users/:id/edit', save);

  pages.post('/admin/users/:id/rename', async (req, res) => {
    const viewer = viewerOf(req);
    const user = await userById(web, viewer, req.params.id);
    const newName = text(req.body.new_name, 40).trim();
    try {
      await api.send(viewer, 'post', apiPath`/admin/users/${user.login}/rename`, { new_username: newName });
      res.redirect(303, back(user, 'renamed'));
    } catch (err) {
      if (!formRefusal(err)) throw err;
      await render(req, res, { user, form: editFormOf(user), renameError: err.message, newName }, err.status);
    }
  });

  pages.post('/admin/users/:id/delete', async (req, res) => {
    const viewer = viewerOf(req);
    const user = await userById(web, viewer, req.params.id);
    if (text(req.body.confirm_name).trim() !== user.login) {
      const deleteError = `To delete the account, type its user name, ${user.login}, exactly.`;
      return render(req, res, { user, form: editFormOf(user), deleteError }, 422);
    }
    try {
      await sendWithQuery(web, viewer, 'delete', apiPath`/admin/users/${user.login}`, { purge: req.body.purge === 'on' });
      res.redirect(303, '/admin/users?done=deleted');
    } catch (err) {
      if (!formRefusal(err)) throw err;
      await render(req, res, { user, form: editFormOf(user), deleteError: err.message }, err.status);
    }
  });
}
