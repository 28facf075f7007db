import { ApiError, type ApiInvoker, type ApiResponse } from '@hearth/plugin-api';
import type { PageViewer } from './page-session';

/** `/repos/${owner}/${repo}` with every interpolated value percent-encoded (names never change a path's shape). */
export function apiPath(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

/**
 * The pages read and change everything through the forge's own `/api/v1` operations, called
 * in-process as the viewer: the access module, token-scope rules and input schemas that guard the
 * API guard every page and form too, and a page shows exactly what the API would show its viewer.
 */
export class ForgeApi {
  constructor(private readonly invoker: ApiInvoker) {}

  private async call(viewer: PageViewer, method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, options = {}) {
    const response = await this.invoker.call(viewer.principal, method, path, options);
    if (response.status >= 400) throw new ApiError(response.status, String((response.body as any)?.message ?? 'request failed'));
    return response;
  }

  async get<T = any>(viewer: PageViewer, path: string, query?: Record<string, unknown>): Promise<T> {
    return (await this.call(viewer, 'get', path, { query })).body as T;
  }

  /** A GET that may name nothing: null for 404 (e.g. a repository without a README). */
  async find<T = any>(viewer: PageViewer, path: string, query?: Record<string, unknown>): Promise<T | null> {
    try {
      return await this.get<T>(viewer, path, query);
    } catch (err) {
      if ((err as ApiError).status === 404) return null;
      throw err;
    }
  }

  /** A paged list: its items and the total the API reports in `X-Total-Count`. */
  async list<T = any>(viewer: PageViewer, path: string, query: Record<string, unknown> = {}): Promise<{ items: T[]; total: number }> {
    const response = await this.call(viewer, 'get', path, { query });
    const items = (response.body as T[]) ?? [];
    return { items, total: Number(totalOf(response) ?? items.length) };
  }

  /** The operation's whole answer (a streamed download: status, content type, headers, body); refusals throw as elsewhere. */
  async download(viewer: PageViewer, path: string): Promise<ApiResponse> {
    return this.call(viewer, 'get', path);
  }

  /** A change; `query` for the operations that take their options there (e.g. marking notifications read). */
  async send<T = any>(
    viewer: PageViewer,
    method: 'post' | 'put' | 'patch' | 'delete',
    path: string,
    body?: unknown,
    query?: Record<string, unknown>,
  ): Promise<T> {
    return (await this.call(viewer, method, path, { body, query })).body as T;
  }
}

function totalOf(response: ApiResponse): string | undefined {
  const headers = response.headers ?? {};
  const found = Object.entries(headers).find(([name]) => name.toLowerCase() === 'x-total-count');
  return found ? String(found[1]) : undefined;
}
