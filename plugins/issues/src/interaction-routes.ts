import type { ApiOperation } from '@hearth/plugin-api';
import { issueContext, type IssueDeps } from './issue-context';
import { pinOperations } from './pins';
import { lockAndDeadlineOperations } from './locks-deadlines';
import { subscriptionOperations } from './subscriptions';
import { dependencyOperations } from './dependencies';
import { reactionOperations } from './reactions';
import { assetOperations } from './issue-attachments';
import { timelineOperations } from './timeline-routes';
import { timeTrackingOperations } from './time-tracking-routes';
import { issueTemplateOperations } from './issue-templates';

/** Assignees, pins, locking, deadlines, subscriptions, dependencies, reactions, timeline, comment attachments. */
export function issueInteractionOperations(deps: IssueDeps): ApiOperation[] {
  const ctx = issueContext(deps);
  return [
    ...pinOperations(deps, ctx),
    ...lockAndDeadlineOperations(deps, ctx),
    ...subscriptionOperations(deps, ctx),
    ...dependencyOperations(deps, ctx),
    ...reactionOperations(deps, ctx),
    ...assetOperations(deps, ctx),
    ...timelineOperations(deps, ctx),
    ...timeTrackingOperations(deps, ctx),
    ...issueTemplateOperations(deps),
  ];
}
