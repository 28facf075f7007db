/**
 * An error whose status and message are safe to show to the client. Anything thrown from a
 * route handler or a hook tap that is not an ApiError becomes a 500 with a generic message
 * (and is logged with the request id), so plugins throw ApiError for every client mistake.
 * @public
 */
export class ApiError extends Error {
  /** Brand checked by the kernel instead of `instanceof`, so two copies of this package still agree. */
  readonly hearthApiError = true;

  constructor(
    readonly status: number,
    message: string,
    /** Extra JSON fields merged into the error body (e.g. validation `errors`). */
    readonly details?: Record<string, unknown>,
    /** Extra response headers (e.g. `WWW-Authenticate`). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static badRequest(message: string, details?: Record<string, unknown>): ApiError {
    return new ApiError(400, message, details);
  }
  static unauthorized(message = 'authentication required'): ApiError {
    return new ApiError(401, message, undefined, { 'WWW-Authenticate': 'Basic realm="Hearth", charset="UTF-8"' });
  }
  static forbidden(message = 'forbidden'): ApiError {
    return new ApiError(403, message);
  }
  static notFound(message = 'not found'): ApiError {
    return new ApiError(404, message);
  }
  static conflict(message: string): ApiError {
    return new ApiError(409, message);
  }
  static unprocessable(message: string, details?: Record<string, unknown>): ApiError {
    return new ApiError(422, message, details);
  }
}

/** True for an ApiError from any copy of this package. @public */
export function isApiError(err: unknown): err is ApiError {
  return typeof err === 'object' && err !== null && (err as { hearthApiError?: unknown }).hearthApiError === true;
}
