/**
 * files.uploadV2's three steps (get an upload URL, send the bytes, complete the upload), with
 * the bytes streamed from disk. The SDK's filesUploadV2 reads the whole file into memory with
 * readFileSync, which for a 200 MB export would stall the event loop and double the memory.
 *
 * Every file's bytes pass the secret registry on their way out (secrets/file-scrub.ts). Slack
 * wants the length before the bytes, and masking changes it: a file on disk is read once to
 * count its secrets and its masked length, then streamed through the scrub as it is sent. The
 * count is therefore known before the upload is completed, and its comment says it. A file whose
 * secrets were counted as it was written (the Shield export's) is not read for the count.
 */
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import type { FilesGetUploadURLExternalArguments, WebClient } from '@slack/web-api';
import { Agent, request } from 'undici';
import { InternalError } from '../errors.js';
import { escapeMrkdwn, truncate } from '../reply/escape.js';
import { commentWithMaskedNote, type FileScrub, type FileSecretCount } from '../secrets/file-scrub.js';
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
  /** The secrets in the file at `path`, counted as it was written: taken when `scrub` holds the same. */
  secretCount?: FileSecretCount;
  content?: string | Buffer;
  /** The bot's secrets, masked in the bytes sent; the comment says how many were. */
  scrub: FileScrub;
}

/** Slack gave no way to upload the file, or refused its bytes. */
export class UploadError extends InternalError {
  override name = 'UploadError';
  readonly kind = 'upload';

  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** What is sent: its length, a way to read it, and how many secrets were masked in it. */
interface Outgoing {
  length: number;
  body: () => Buffer | Readable;
  masked: number;
}

export async function outgoing(input: UploadInput): Promise<Outgoing> {
  const { path, scrub } = input;
  if (!path) {
    const { content, masked } = scrub.bytes(input.content ?? '');
    return { length: content.length, body: () => content, masked };
  }
  const { masked, bytes } = await scrub.count(path, input.secretCount);
  // Without a secret in it the file goes as it is; with one, the same bytes pass the scrub again as they go.
  if (masked === 0) return { length: bytes, body: () => createReadStream(path), masked };
  return {
    length: bytes,
    body: () => pipeline(createReadStream(path), scrub.stream(), () => undefined),
    masked,
  };
}

export async function uploadFile(client: WebClient, input: UploadInput): Promise<void> {
  const sent = await outgoing(input);
  const { length } = sent;
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
    body: sent.body(),
    dispatcher: agent,
  });
  await response.body.dump();
  if (response.statusCode !== 200)
    throw new UploadError(
      `the upload answered HTTP ${response.statusCode}`,
      `upload_http_${response.statusCode}`,
    );
  // Slack renders a file's title and comment as mrkdwn: they are escaped like every message.
  const comment = commentWithMaskedNote(input.comment, sent.masked);
  await client.files.completeUploadExternal({
    files: [{ id: target.file_id, title: escapeMrkdwn(input.title) }],
    channel_id: input.channelId,
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
    ...(comment?.trim() ? { initial_comment: escapeMrkdwn(comment) } : {}),
  });
}
