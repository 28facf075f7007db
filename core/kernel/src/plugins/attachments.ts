import type { Knex } from 'knex';
import {
  ApiError,
  type AttachmentInfo,
  type AttachmentService,
  type IssueDownloadCheck,
  type ReleaseDownloadCheck,
} from '@hearth/plugin-api';
import type { HearthConfig } from '../config/types';
import { AttachmentStore, attachmentInfo, attachmentToApi, type AttachmentRow } from '../attachments/attachment-store';

/** `ctx.attachments`, plus the release and issue checks the kernel's download router asks. */
export interface KernelAttachments extends AttachmentService {
  releaseCheck(): ReleaseDownloadCheck | null;
  issueCheck(): IssueDownloadCheck | null;
}

/** Attachments as the plugin API offers them (`ctx.attachments`): plain data over the core's AttachmentStore. */
export function attachmentService(db: Knex, config: HearthConfig): KernelAttachments {
  const store = new AttachmentStore(db, config);
  let check: ReleaseDownloadCheck | null = null;
  let issueCheck: IssueDownloadCheck | null = null;
  const rowOf = async (attachment: AttachmentInfo): Promise<AttachmentRow> => {
    const row = await store.byUuid(attachment.uuid);
    if (!row) throw ApiError.notFound(`attachment does not exist [id: ${attachment.id}]`);
    return row;
  };
  return {
    create: async (req, target) =>
      attachmentInfo(
        await store.upload(req, {
          repoId: target.repositoryId,
          releaseId: target.releaseId,
          issueId: target.issueId,
          commentId: target.commentId,
          uploaderId: target.uploaderId,
          name: target.name,
        }),
      ),
    listOfReleases: async (releaseIds) => (await store.list([...releaseIds])).map(attachmentInfo),
    getOfRelease: async (releaseId, id) => {
      const row = await store.get(releaseId, id);
      return row ? attachmentInfo(row) : null;
    },
    rename: async (attachment, name) => attachmentInfo(await store.rename(await rowOf(attachment), name)),
    remove: async (attachments) => {
      if (attachments.length === 0) return;
      const rows = await store.byIds(attachments.map((a) => a.id));
      await store.remove(rows);
    },
    toApi: (attachment) =>
      attachmentToApi(config, {
        id: attachment.id,
        uuid: attachment.uuid,
        name: attachment.name,
        size: attachment.size,
        download_count: attachment.downloadCount,
        created_unix: attachment.createdUnix,
      }),
    guardReleaseDownloads: (next) => {
      if (check) throw new Error('a release download check is registered already (one plugin owns releases)');
      check = next;
    },
    releaseCheck: () => check,
    listOfIssues: async (issueIds) => (await store.listOf('issue', [...issueIds])).map(attachmentInfo),
    listOfComments: async (commentIds) => (await store.listOf('comment', [...commentIds])).map(attachmentInfo),
    getOfIssue: async (issueId, id) => {
      const row = await store.getOf('issue', issueId, id);
      return row ? attachmentInfo(row) : null;
    },
    getOfComment: async (commentId, id) => {
      const row = await store.getOf('comment', commentId, id);
      return row ? attachmentInfo(row) : null;
    },
    guardIssueDownloads: (next) => {
      if (issueCheck) throw new Error('an issue download check is registered already (one plugin owns issues)');
      issueCheck = next;
    },
    issueCheck: () => issueCheck,
  };
}
