/**
 * files.uploadV2's three steps (get an upload URL, send the bytes, complete the upload), with
 * the bytes streamed from disk. The SDK's filesUploadV2 reads the whole file into memory with
 * readFileSync, which for a 200 MB export would stall the event loop and double the memory.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { FilesGetUploadURLExternalArguments, WebClient } from '@slack/web-api';
import { Agent, request } from 'undici';
import { escapeMrkdwn, truncate } from '../reply/escape.js';
import { FILE_ALT_TEXT_MAX } from './limits.js';

const agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: 10_000 }, bodyTimeout: 120_000 });

export interface UploadInput {
  channelId: string;
  /** The first message of the thread the file goes in (never a reply's ts: Slack wants the parent's). */
  threadTs?: string;
  filename: string;
  title: string;
  comment?: string;
  /** Plain text a screen reader reads for a picture. */
  altText?: string;
  /** A file on disk (streamed) or bytes in memory. */
  path?: string;
  content?: string | Buffer;
}

export class UploadError extends Error {
  override name = 'UploadError';
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export async function uploadFile(client: WebClient, input: UploadInput): Promise<void> {
  const bytes = input.path ? undefined : Buffer.from(input.content ?? '');
  const length = input.path ? (await stat(input.path)).size : bytes!.length;
  // Slack's argument is `alt_txt`; the SDK's type calls it `alt_text`, a name Slack ignores.
  const args: FilesGetUploadURLExternalArguments & { alt_txt?: string } = {
    filename: input.filename,
    length,
    ...(input.altText?.trim() ? { alt_txt: truncate(input.altText, FILE_ALT_TEXT_MAX) } : {}),
  };
  const target = await client.files.getUploadURLExternal(args);
  if (!target.upload_url || !target.file_id)
    throw new UploadError('Slack gave no upload URL', 'no_upload_url');
  const response = await request(target.upload_url, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(length) },
    body: input.path ? createReadStream(input.path) : bytes,
    dispatcher: agent,
  });
  await response.body.dump();
  if (response.statusCode !== 200)
    throw new UploadError(
      `the upload answered HTTP ${response.statusCode}`,
      `upload_http_${response.statusCode}`,
    );
  // Slack renders a file's title and comment as mrkdwn: they are escaped like every message.
  await client.files.completeUploadExternal({
    files: [{ id: target.file_id, title: escapeMrkdwn(input.title) }],
    channel_id: input.channelId,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(input.comment?.trim() ? { initial_comment: escapeMrkdwn(input.comment) } : {}),
  });
}
