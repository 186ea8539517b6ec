/**
 * A reply's files and pictures, uploaded after its message (PRODUCT §6).
 *
 * - The message names each file and where it went; a file that could not be uploaded is named
 *   as such in the message (updated after the fact), never claimed, and the requester is told.
 * - Pictures (charts) are uploaded with their alt text; one that could not be uploaded is shown
 *   in the message as its text form instead, and that is the whole answer.
 * - File titles, comments and alt texts pass the secret registry, and so do the bytes of every
 *   file (upload.ts), the secrets the reply exists to deliver aside.
 * - Temporary files of a reply are removed whatever happens.
 */
import { rm } from 'node:fs/promises';
import { OperationFailedError } from '../operations/engine/errors.js';
import type { Reply, ReplyFile, ReplyImage } from '../reply/model.js';
import { createFileScrub } from '../secrets/file-scrub.js';
import { slackErrorCode } from './fallback.js';
import {
  type Correct,
  type FileTarget,
  type Outgoing,
  payload,
  type SentReply,
  scrub,
  type Way,
} from './outgoing.js';
import { uploadFile } from './upload.js';

/** The one place the bytes of Slack-bound files pass the secret registry, the reply's own secrets aside. */
const fileScrub = (slack: Outgoing, reply: Reply) => createFileScrub(slack.secrets, reply.reveals ?? []);

/** Uploads each file to `target`; returns the ones that failed, with Slack's reason. */
async function uploadFiles(
  slack: Outgoing,
  target: FileTarget,
  files: ReplyFile[],
  reply: Reply,
): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  for (const file of files) {
    try {
      await uploadFile(slack.client, {
        ...target,
        filename: file.filename,
        title: scrub(slack, file.title, reply),
        comment: file.comment === undefined ? undefined : scrub(slack, file.comment, reply),
        path: file.path,
        ...(file.secretCount && { secretCount: file.secretCount }),
        content: file.content,
        scrub: fileScrub(slack, reply),
      });
    } catch (error) {
      const code = slackErrorCode(error) ?? 'upload failed';
      slack.logger.error('file upload failed', { filename: file.filename, slackError: code, error });
      failed.set(file.filename, code);
    }
  }
  return failed;
}

/** Uploads each picture with its alt text; returns the ones that failed, with Slack's reason. */
async function uploadImages(
  slack: Outgoing,
  target: FileTarget,
  images: ReplyImage[],
  reply: Reply,
): Promise<Map<string, string>> {
  const failed = new Map<string, string>();
  for (const image of images) {
    try {
      await uploadFile(slack.client, {
        ...target,
        filename: image.filename,
        title: scrub(slack, image.title, reply),
        altText: scrub(slack, image.altText, reply),
        content: image.png,
        scrub: fileScrub(slack, reply),
      });
    } catch (error) {
      const code = slackErrorCode(error) ?? 'upload failed';
      slack.logger.warn('a picture could not be uploaded; its text form is shown instead', {
        filename: image.filename,
        slackError: code,
      });
      failed.set(image.filename, code);
    }
  }
  return failed;
}

/**
 * Uploads the pictures and files of a sent reply into `way.filesTo`. A failed file is named as
 * such in the message, and reported to the requester as an unexpected failure (with a
 * correlation id); a failed picture is shown in the message as its text form.
 */
export async function deliverFiles(
  slack: Outgoing,
  reply: Reply,
  { sent, rendered, render }: SentReply,
  way: Pick<Way, 'delivery' | 'filesTo'>,
  correct: Correct,
): Promise<void> {
  if (rendered.files.length === 0 && rendered.images.length === 0) return;
  let failedImages: Map<string, string>;
  let failed: Map<string, string>;
  try {
    const target = await way.filesTo();
    failedImages = await uploadImages(slack, target, rendered.images, reply);
    failed = await uploadFiles(slack, target, rendered.files, reply);
  } catch (error) {
    const code = slackErrorCode(error) ?? 'no conversation for the files';
    failedImages = new Map(rendered.images.map((image) => [image.filename, code]));
    failed = new Map(rendered.files.map((file) => [file.filename, code]));
  }
  if (failed.size === 0 && failedImages.size === 0) return;
  const named = render(reply, { ...way.delivery, failed: new Map([...failedImages, ...failed]) });
  await correct(sent, scrub(slack, payload(named), reply));
  if (failed.size === 0) return;
  const names = [...failed].map(([name, code]) => `${name} (${code})`).join(', ');
  throw new OperationFailedError(
    `The file${failed.size === 1 ? '' : 's'} ${names} could not be uploaded; run the command again to get ${failed.size === 1 ? 'it' : 'them'}.`,
    true,
  );
}

/** Removes the temporary files of the reply and of its follow-ups, delivered or not. */
export async function removeTemporaryFiles(reply: Reply): Promise<void> {
  const replies = [reply, ...(reply.thread ?? [])];
  await Promise.all(
    replies.flatMap((each) =>
      (each.files ?? []).flatMap((file) =>
        file.path ? [rm(file.path, { force: true }).catch(() => undefined)] : [],
      ),
    ),
  );
}
