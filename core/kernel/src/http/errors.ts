import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isApiError, type Logger } from '@hearth/plugin-api';

/** Gitea's error body: `{"message": …, "url": …}`, url pointing at the API docs. */
export function errorBody(message: string, docsUrl: string, extra?: Record<string, unknown>): Record<string, unknown> {
  return { message, url: docsUrl, ...(extra ?? {}) };
}

/** `docsUrl` is read per response: with HTTP_PORT 0 the public URL is known only once listening. */
export function notFoundHandler(docsUrl: () => string): RequestHandler {
  return (req, res) => {
    res.status(404).json(errorBody(`not found: ${req.method} ${req.originalUrl.split('?')[0]}`, docsUrl()));
  };
}

/**
 * The last word on every error. Client mistakes (ApiError, body-parser's 4xx) keep their status
 * and message; anything else is a 500 with a generic message and the request id, and the full
 * error goes to the log only.
 */
export function errorHandler(docsUrlOf: () => string, log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const docsUrl = docsUrlOf();
    const requestId = res.locals.requestId as string | undefined;
    if (res.headersSent) {
      log.error({ err, requestId }, 'error after the response started');
      res.destroy();
      return;
    }
    if (isApiError(err)) {
      if (err.headers) res.set(err.headers);
      res.status(err.status).json(errorBody(err.message, docsUrl, err.details));
      return;
    }
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      res.status(413).json(errorBody(`request body too large: the limit is ${(err as { limit?: number }).limit} bytes`, docsUrl));
      return;
    }
    // A number no column can hold (PostgreSQL 22003, MySQL 1264) names nothing that exists.
    const code = (err as { code?: string; errno?: number }).code;
    if (code === '22003' || code === 'ER_WARN_DATA_OUT_OF_RANGE') {
      res.status(422).json(errorBody('a number in the request is out of range', docsUrl));
      return;
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json(errorBody((err as Error).message || 'bad request', docsUrl));
      return;
    }
    log.error({ err, requestId, method: req.method, path: req.path }, 'unexpected error');
    res
      .status(500)
      .json(
        errorBody('internal server error; the administrator can find it in the log by its request id', docsUrl, { request_id: requestId }),
      );
  };
}
