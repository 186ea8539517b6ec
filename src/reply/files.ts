/**
 * How a message names the files that go with it: what each holds and where it went, or that
 * it could not be delivered. A message never claims a file that did not arrive.
 */
import type { ReplyFile, ReplyImage } from './model.js';

/** Where a message's files went: below it in the same conversation, or to the requester's DM. */
export interface FileDelivery {
  place: 'below' | 'dm';
  /** Why the files went to the DM ("the bot is not in this channel"). */
  why?: string;
  /** Files that could not be delivered, with the reason; the message says so instead. */
  failed?: ReadonlyMap<string, string>;
}

/** One plain line per file. */
export function fileNotes(files: readonly ReplyFile[], delivery: FileDelivery): string[] {
  return files.map((file) => {
    const failed = delivery.failed?.get(file.filename);
    if (failed !== undefined)
      return `⚠ ${file.filename} could not be delivered (${failed}); run the command again to get it.`;
    const about = file.about ? `: ${file.about}` : '';
    return `📎 ${file.filename}${about}, ${placeWords(delivery)}.`;
  });
}

/** Where a message's files went, in words. */
const placeWords = (delivery: FileDelivery) =>
  delivery.place === 'below'
    ? 'attached below'
    : `sent to you in a direct message${delivery.why ? ` (${delivery.why})` : ''}`;

/**
 * One plain line per picture uploaded with the message, wherever its files went (a picture that
 * failed is shown as text instead).
 */
export function imageNotes(images: readonly ReplyImage[], delivery: FileDelivery): string[] {
  return images.map((image) =>
    delivery.place === 'below'
      ? `📈 ${image.title}: the picture is attached below.`
      : `📈 ${image.title}: the picture is ${placeWords(delivery)}.`,
  );
}
