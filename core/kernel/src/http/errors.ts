import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { isApiError, type ErrorPage, type Logger } from '@hearth/plugin-api';

/** Gitea's error body: `{"message": …, "url": …}`, url pointing at the API docs. */
export function errorBody(message: string, docsUrl: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return { message, url: docsUrl, ...(extra ?? {}) };
}

/** Renders an error as an HTML page for a browser outside the API (`http.errorPage`); true when it answered. */
export type ErrorPageRenderer = (error: ErrorPage, req: Request, res: Response) => boolean;

/** A browser asking for a page (not the API, not a client that takes JSON or anything). */
function wantsPage(req: Request): boolean {
  return !req.path.startsWith('/api/') && req.accepts(['json', 'html']) === 'html';
}

function answer(
  req: Request,
  res: Response,
  status: number,
  body: Record<string, unknown>,
  renderPage: ErrorPageRenderer | undefined,
): void {
  res.status(status);
  if (renderPage && wantsPage(req) && renderPage({ status, message: String(body.message) }, req, res)) return;
  res.json(body);
}

/** `docsUrl` is read per response: with HTTP_PORT 0 the public URL is known only once listening. */
export function notFoundHandler(docsUrl: () => string, renderPage?: ErrorPageRenderer): RequestHandler {
  return (req, res) => {
    answer(req, res, 404, errorBody(`not found: ${req.method} ${req.originalUrl.split('?')[0]}`, docsUrl()), renderPage);
  };
}

/**
 * The last word on every error. Client mistakes (ApiError, body-parser's 4xx) keep their status
 * and message; anything else is a 500 with a generic message and the request id, and the full
 * error goes to the log only. Browsers outside the API get the same answer as a page when a
 * plugin renders pages.
 */
export function errorHandler(docsUrlOf: () => string, log: Logger, renderPage?: ErrorPageRenderer): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const docsUrl = docsUrlOf();
    const requestId = res.locals.requestId as string | undefined;
    if (res.headersSent) {
      log.error({ err, requestId }, 'error after the response started');
      res.destroy();
      return;
    }
    const reply = (status: number, body: Record<string, unknown>) => answer(req, res, status, body, renderPage);
    if (isApiError(err)) {
      if (err.headers) res.set(err.headers);
      reply(err.status, errorBody(err.message, docsUrl, err.details));
      return;
    }
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      reply(413, errorBody(`request body too large: the limit is ${(err as { limit?: number }).limit} bytes`, docsUrl));
      return;
    }
    // A number no column can hold (PostgreSQL 22003, MySQL 1264) names nothing that exists.
    const code = (err as { code?: string; errno?: number }).code;
    if (code === '22003' || code === 'ER_WARN_DATA_OUT_OF_RANGE') {
      reply(422, errorBody('a number in the request is out of range', docsUrl));
      return;
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      reply(status, errorBody((err as Error).message || 'bad request', docsUrl));
      return;
    }
    log.error({ err, requestId, method: req.method, path: req.path }, 'unexpected error');
    reply(
      500,
      errorBody('internal server error; the administrator can find it in the log by its request id', docsUrl, { request_id: requestId }),
    );
  };
}
