/**
 * The command line of an `@edgeops …` mention: what follows the bot's own mention, with Slack's
 * message formatting undone where it changed what was typed (links it made of host names).
 */

/** Slack's link markup: `<https://host|host>`, `<mailto:a@b|a@b>`, `<https://host>`. */
const LINK = /<((?:https?|mailto):[^<>|\s]*)(?:\|([^<>]*))?>/g;

/** A user mention as Slack writes it: `<@U0EDGEBOT>` or `<@U0EDGEBOT|edgeops>`. */
const USER_MENTION = /<@([UW][A-Z0-9]+)(?:\|[^<>]*)?>/g;

/**
 * The words after the bot's mention (`<@UBOT> logs 308006` → `logs 308006`). Without the bot's
 * id, or when its mention is not in the text, what follows the first mention is taken. `&amp;`
 * and friends are left for the tokenizer, which undoes them as for `/edge`.
 */
export function commandAfterMention(text: string, botUserId: string | undefined): string {
  let start = -1;
  for (const match of text.matchAll(USER_MENTION)) {
    if (start === -1 || match[1] === botUserId) start = match.index + match[0].length;
    if (match[1] === botUserId) break;
  }
  const rest = start === -1 ? text : text.slice(start);
  return rest.replace(LINK, (_link, url: string, label: string | undefined) => label ?? url).trim();
}
