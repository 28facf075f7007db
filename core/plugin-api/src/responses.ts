/**
 * What an API operation handler returns. The kernel serialises `body` as JSON unless
 * `contentType` says otherwise (then `body` must be a string or Buffer).
 * @public
 */
export interface ApiResponse {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** 200 with a JSON body. @public */
export function ok(body: unknown): ApiResponse {
  return { status: 200, body };
}

/** 201 with a JSON body. @public */
export function created(body: unknown): ApiResponse {
  return { status: 201, body };
}

/** 204 without a body. @public */
export function noContent(): ApiResponse {
  return { status: 204 };
}

/** A non-JSON body (HTML, plain text, binary). @public */
export function raw(status: number, contentType: string, body: string | Buffer): ApiResponse {
  return { status, body, contentType };
}
