import fs from 'node:fs';
import path from 'node:path';
import Ajv04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import { unixToIso } from '@hearth/plugin-api';
import type { MilestoneRow } from './issue-store';
import { SCHEMAS_DIR } from './paths';

/** The schema file (JSON Schema draft-04) of the milestone interchange document. */
export const MILESTONE_DOCUMENT_SCHEMA = path.join(SCHEMAS_DIR, 'milestone.draft-04.json');

/** The document's deadline for a milestone without one: the latest second Gitea stores (9999-12-31T23:59:59Z). */
export const NO_DEADLINE_UNIX = 253402300799;

/** One item of the milestone interchange document (all seven properties, nothing else). */
export interface MilestoneDocumentItem {
  title: string;
  description: string;
  deadline: string;
  created: string;
  updated: string;
  closed: string | null;
  state: 'open' | 'closed';
}

let validator: ValidateFunction | undefined;

/** The draft-04 validator (ajv-draft-04 with ajv-formats for date-time), compiled once. */
function milestoneValidator(): ValidateFunction {
  if (!validator) {
    const ajv = new Ajv04({ allErrors: true, strict: false });
    addFormats(ajv as any);
    validator = ajv.compile(JSON.parse(fs.readFileSync(MILESTONE_DOCUMENT_SCHEMA, 'utf8')));
  }
  return validator;
}

/**
 * Validate a milestone interchange document against the draft-04 schema; [] when valid, else the
 * problems as `{ field, message }` (field a JSON pointer into the document, `/0/state`).
 */
export function validateMilestoneDocument(doc: unknown): { field: string; message: string }[] {
  const validate = milestoneValidator();
  if (validate(doc)) return [];
  return (validate.errors ?? []).map((e) => {
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
        : e.keyword === 'required'
          ? ` (${(e.params as { missingProperty: string }).missingProperty})`
          : e.keyword === 'enum'
            ? ` (${((e.params as { allowedValues: string[] }).allowedValues ?? []).join(', ')})`
            : '';
    return { field: e.instancePath || '/', message: `${e.message ?? 'is invalid'}${extra}` };
  });
}

/** A repository's milestones as the interchange document. */
export function milestonesToDocument(rows: MilestoneRow[]): MilestoneDocumentItem[] {
  return rows.map((m) => ({
    title: m.name,
    description: m.content ?? '',
    deadline: unixToIso(m.deadline_unix > 0 ? m.deadline_unix : NO_DEADLINE_UNIX),
    created: unixToIso(m.created_unix),
    updated: unixToIso(m.updated_unix),
    closed: m.closed_date_unix > 0 ? unixToIso(m.closed_date_unix) : null,
    state: m.is_closed ? 'closed' : 'open',
  }));
}

const toUnix = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The `milestone` columns of a (valid) document item; a deadline in year 9999 or later means none. */
export function documentItemToColumns(item: MilestoneDocumentItem): Record<string, unknown> {
  const deadline = toUnix(item.deadline);
  return {
    name: item.title,
    content: item.description,
    is_closed: item.state === 'closed',
    deadline_unix: deadline >= NO_DEADLINE_UNIX - 366 * 86400 ? 0 : Math.max(0, deadline),
    closed_date_unix: item.closed ? Math.max(0, toUnix(item.closed)) : 0,
    created_unix: Math.max(0, toUnix(item.created)),
    updated_unix: Math.max(0, toUnix(item.updated)),
  };
}
