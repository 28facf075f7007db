import { ApiError } from './errors';

/**
 * The deepest nesting a JSON text from a client may have. No request body of the API nests
 * deeper than a few levels; validation and handlers recurse, so deeper input stops before parsing.
 * @public
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest nesting of arrays and objects in a JSON text, counted on the bytes before parsing
 * (brackets inside strings do not count). Stops counting once past four times the limit.
 * @public
 */
export function jsonNestingDepth(bytes: Uint8Array): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > MAX_JSON_DEPTH * 4) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

/**
 * Parse JSON a client sent (a request body, an uploaded file's metadata). Too deep (over
 * MAX_JSON_DEPTH) or invalid JSON throws a 400 naming `what`, so hostile input is a client error,
 * never a stack overflow in the parser or in the code that walks the result.
 * @public
 */
export function parseJsonBody(text: string | Buffer, what: string): unknown {
  const depth = jsonNestingDepth(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
  if (depth > MAX_JSON_DEPTH)
    throw ApiError.badRequest(`${what}: JSON nested ${depth > MAX_JSON_DEPTH * 4 ? 'far ' : ''}deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(typeof text === 'string' ? text : text.toString('utf8'));
  } catch (err) {
    throw ApiError.badRequest(`${what}: invalid JSON: ${(err as Error).message}`);
  }
}
