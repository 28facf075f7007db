import type { JsonSchema } from '@hearth/plugin-api';

/** Path parameters: one string. */
export const str = (name: string): JsonSchema => ({
  type: 'object',
  properties: { [name]: { type: 'string', maxLength: 255 } },
  required: [name],
});

/** Path parameters: several strings. */
export const strs = (...names: string[]): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries(names.map((n) => [n, { type: 'string', maxLength: 255 }])),
  required: names,
});

/** Path parameters: a team's id. */
export const TEAM_ID: JsonSchema = { type: 'object', properties: { id: { type: 'integer', minimum: 1 } }, required: ['id'] };

/** Path parameters: a team's id and strings. */
export const teamIdAnd = (...names: string[]): JsonSchema => ({
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1 }, ...Object.fromEntries(names.map((n) => [n, { type: 'string', maxLength: 255 }])) },
  required: ['id', ...names],
});

/** A response: a list of `ref`. */
export const list = (ref: string) => ({ description: `${ref}List`, schema: { type: 'array', items: { $ref: ref } } });
