import type { Request } from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import { ApiError, type ApiInvoker, type ApiResponse, type Logger } from '@hearth/plugin-api';
import {
  byLiteralFirst,
  prepareOperation,
  toExpressPath,
  type OperationDeps,
  type PreparedOperation,
  type RegisteredOperation,
} from './operations';

interface Route {
  method: string;
  matches: MatchFunction<Record<string, string | string[]>>;
  run: PreparedOperation;
}

/**
 * `/api/v1` operations called in-process (`ctx.api`), e.g. by the web interface: the same checks
 * as over HTTP — token scope, the access declaration, ajv validation — with the caller's principal,
 * so a page can never show what the API would refuse. The table is built on the first call, once
 * every plugin has registered its operations.
 */
export function operationInvoker(operations: readonly RegisteredOperation[], deps: OperationDeps, log: Logger): ApiInvoker {
  let byFirstSegment: Map<string, Route[]> | undefined;
  const table = () => {
    if (byFirstSegment) return byFirstSegment;
    byFirstSegment = new Map();
    for (const { op } of byLiteralFirst(operations)) {
      const first = op.path.split('/')[1].toLowerCase();
      const routes = byFirstSegment.get(first) ?? [];
      routes.push({
        method: op.method,
        matches: match(toExpressPath(op.path), { decode: decodeURIComponent, sensitive: false }),
        run: prepareOperation(op, deps),
      });
      byFirstSegment.set(first, routes);
    }
    return byFirstSegment;
  };

  return {
    async call(principal, method, path, options = {}): Promise<ApiResponse> {
      const first = path.split('/')[1]?.toLowerCase() ?? '';
      for (const route of table().get(first) ?? []) {
        if (route.method !== method) continue;
        const found = route.matches(path);
        if (!found) continue;
        const query = { ...(options.query ?? {}) };
        const pairs = Object.entries(query).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((x): [string, string] => [k, String(x)]));
        const search = new URLSearchParams(pairs).toString();
        const originalUrl = `/api/v1${path}${search ? `?${search}` : ''}`;
        // Handlers read a few request facts (method, URL for paging links, query); an in-process call has no socket.
        const raw = {
          method: method.toUpperCase(),
          originalUrl,
          url: originalUrl,
          query,
          headers: {},
          params: found.params,
        } as unknown as Request;
        return route.run({
          principal,
          params: found.params,
          query,
          readBody: async () => options.body ?? {},
          headers: {},
          requestId: 'in-process',
          log,
          raw,
        });
      }
      throw ApiError.notFound(`no API operation ${method.toUpperCase()} ${path}`);
    },
  };
}
