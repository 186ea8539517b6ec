/**
 * Text for replies in Slack's mrkdwn, with every interpolated value escaped: platform and
 * attacker text (URLs, DNS values, user agents) can never ping (`<!channel>`) or inject links.
 * The console adapter turns the same markup into plain text.
 */
import { escapeMrkdwn } from './escape.js';

declare const markupBrand: unique symbol;
export type Markup = string & { readonly [markupBrand]: true };

/** Escapes what Slack treats as control characters in mrkdwn (see slack/escape.ts). */
export const escapeText = escapeMrkdwn;

/** Trusted mrkdwn written by us; never pass user or platform text here. */
export const trusted = (text: string): Markup => text as Markup;

/** Already-escaped markup, marked so that `md` inserts it as is. */
class Nested {
  constructor(readonly markup: Markup) {}
}

export const nest = (markup: Markup): Nested => new Nested(markup);

type Interpolation = string | number | bigint | boolean | null | undefined | Nested;

/** Tagged template: `md\`*${domain}* has ${count} records\`` escapes every value. */
export function md(strings: TemplateStringsArray, ...values: Interpolation[]): Markup {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    if (value instanceof Nested) out += value.markup;
    else if (value !== null && value !== undefined) out += escapeText(String(value));
    out += strings[index + 1] ?? '';
  });
  return out as Markup;
}

/** A user mention, from an id the bot holds (never from user or platform text, which must not ping). */
export const mention = (userId: string): Markup => trusted(`<@${userId.replace(/[^A-Z0-9]/gi, '')}>`);

/** A link to a channel, from an id the bot holds. */
export const channelRef = (channelId: string): Markup =>
  trusted(`<#${channelId.replace(/[^A-Z0-9]/gi, '')}>`);

/** A link Slack gave (a permalink), kept only when nothing in it could break out of `<…|…>`. */
const SAFE_LINK = /^https:\/\/[^\s<>|]+$/;

/** Whether a URL the transport gave is a plain https one, safe to link to. */
export const isSafeLink = (url: string): boolean => SAFE_LINK.test(url);

/** A link with our own words, from a URL the transport gave; undefined when the URL is not a plain https one. */
export const linkTo = (url: string, label: string): Markup | undefined =>
  isSafeLink(url) ? trusted(`<${url.replaceAll('&', '&amp;')}|${escapeText(label)}>`) : undefined;

export const joinMarkup = (parts: Markup[], separator = '\n'): Markup => parts.join(separator) as Markup;

/** Turns markup back into plain text for terminals and file comments. */
export function markupToPlain(markup: string): string {
  return markup
    .replace(/<([^|>]+)\|([^>]+)>/g, '$2 ($1)')
    .replace(/<@([A-Z0-9]+)>/g, '@$1')
    .replace(/<#([A-Z0-9]+)(\|[^>]*)?>/g, '#$1')
    .replace(/\*([^*\n]+)\*/g, '$1')
    .replace(/(^|\s)_([^_\n]+)_(?=\s|$)/g, '$1$2')
    .replace(/`([^`\n]+)`/g, '$1')
    .replace(/\u2060/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
