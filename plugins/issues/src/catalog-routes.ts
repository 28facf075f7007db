import type { ApiOperation } from '@hearth/plugin-api';
import { issueContext, type IssueDeps } from './issue-context';
import { orgLabelOperations } from './org-label-routes';
import { labelTemplateOperations } from './label-templates';
import { milestoneDocumentOperations } from './milestone-document-routes';
import { issueSearchOperations } from './issue-search';

/**
 * Organization labels, label templates, the milestone interchange document, cross-repository
 * issue search. See README "Issue catalog".
 */
export function issueCatalogOperations(deps: IssueDeps): ApiOperation[] {
  const ctx = issueContext(deps);
  return [
    ...orgLabelOperations(deps),
    ...labelTemplateOperations(deps),
    ...milestoneDocumentOperations(deps, ctx),
    ...issueSearchOperations(deps, ctx),
  ];
}
