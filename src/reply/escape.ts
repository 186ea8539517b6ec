/**
 * Making untrusted text (platform responses, URLs, user agents, SQL results) safe to show in
 * Slack mrkdwn: nothing in it can mention, link or break out of the formatting it is placed in.
 */
import { MESSAGE_BUDGET } from './budget.js';

// Slack parses mentions and links only inside <…>; escaping the three control characters
// ("Formatting text for app surfaces": escaping text) makes every such sequence literal.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

// A word joiner after the @ keeps Slack's automatic mention parsing away from bare broadcast words.
const BROADCAST_WORDS = /@(channel|here|everyone)\b/gi;
const WORD_JOINER = '\u2060';
/** Text with none of these needs no escaping at all. */
const NEEDS_ESCAPE = /[&<>@]/;

/**
 * Escapes `&`, `<` and `>` so `<!channel>`, `<@U123>` and `<https://x|y>` arrive as text, and
 * defuses bare `@channel`/`@here`/`@everyone`. The text reads the same in Slack.
 */
export function escapeMrkdwn(text: string): string {
  // Most values (ids, names, numbers) hold none of these: one scan instead of two replaces.
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(/[&<>]/g, (char) => ENTITIES[char]!).replace(BROADCAST_WORDS, `@${WORD_JOINER}$1`);
}

const FENCE = '```';
// A zero-width space between backticks keeps any run of them from closing the fence.
const ZERO_WIDTH_SPACE = '\u200b';

/**
 * Wraps untrusted text in a mrkdwn code block that it cannot close: runs of backticks are split
 * with zero-width spaces, and the text is escaped like any mrkdwn. The result (fences included)
 * fits in `max` characters; a cut shows as a final `…`.
 */
export function codeBlock(text: string, max: number = MESSAGE_BUDGET.sectionChars): string {
  const body = escapeMrkdwn(text).replace(/`(?=`)/g, `\`${ZERO_WIDTH_SPACE}`);
  const frame = `${FENCE}\n\n${FENCE}`.length;
  // An empty block renders as stray backticks, so show a single space.
  const inner = truncate(body === '' ? ' ' : body, Math.max(1, max - frame));
  return `${FENCE}\n${inner}\n${FENCE}`;
}

// U+02CB looks like a backtick but does not end inline code.
const GRAVE_LOOKALIKE = '\u02cb';

/** Wraps untrusted text in inline code: backticks become a look-alike, line breaks become spaces. */
/** Platform text for a code block row: on one line, so it cannot forge another row. */
export const oneLine = (text: string): string => text.replace(/[\r\n\t\v\f\u2028\u2029]+/g, ' ');

export function inlineCode(text: string): string {
  const body = escapeMrkdwn(text)
    .replace(/`/g, GRAVE_LOOKALIKE)
    .replace(/\r\n|\r|\n/g, ' ');
  return `\`${body === '' ? ' ' : body}\``;
}

const ENTITY_AT_END = /&[a-z]{0,3}$/;
const ENTITY_AHEAD = /^&(amp|lt|gt);/;

/**
 * Shortens `text` to at most `max` UTF-16 code units, ending with `suffix` when cut. It never
 * splits a surrogate pair, nor one of the entities escapeMrkdwn produces.
 */
export function truncate(text: string, max: number, suffix = '…'): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  if (suffix.length >= max) return suffix.slice(0, max);
  let end = max - suffix.length;
  const last = text.charCodeAt(end - 1);
  // A high surrogate at the cut would leave half a character behind.
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  const partial = ENTITY_AT_END.exec(text.slice(Math.max(0, end - 4), end));
  if (partial) {
    const start = end - partial[0].length;
    if (ENTITY_AHEAD.test(text.slice(start))) end = start;
  }
  return text.slice(0, end) + suffix;
}
