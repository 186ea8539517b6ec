/**
 * files.uploadV2's three steps (get an upload URL, send the bytes, complete the upload), with
 * the bytes streamed from disk. The SDK's filesUploadV2 reads the whole file into memory with
 * readFileSync, which for a 200 MB export would stall the event loop and double the memory.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { WebClient } from '@slack/web-api';
import { Agent, request } from 'undici';
import { escapeMrkdwn } from '../reply/escape.js';

const agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: 10_000 }, bodyTimeout: 120_000 });

export interface UploadInput {
  channelId: string;
  filename: string;
  title: string;
  comment?: string;
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
  const target = await client.files.getUploadURLExternal({ filename: input.filename, length });
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
    ...(input.comment?.trim() ? { initial_comment: escapeMrkdwn(input.comment) } : {}),
  });
}
