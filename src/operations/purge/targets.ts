/**
 * The URLs of `/edge purge URL…` as typed, or as a form holds them (one a line): each whole,
 * http or https, at most 20 a command. A URL with `*`, or whose path ends in `/`, purges more than
 * itself (the platform may purge everything below it), so the policy reads it as `purge.zone`.
 */

/** URLs one command purges at most (PRODUCT §4). */
export const MAX_PURGE_URLS = 20;
/** The longest URL taken: longer ones are not URLs anyone means to purge. */
const MAX_URL_LENGTH = 4096;

export const PURGE_URL_EXAMPLE = 'https://www.example.com/assets/app.js';

/** How a quoted value is shown in an error: its first 60 characters. */
const quoted = (value: string) => `"${value.length > 60 ? `${value.slice(0, 60)}…` : value}"`;

/** One URL, checked: whole, http or https, with a host. */
export function readPurgeUrl(typed: string): { ok: true; url: string } | { ok: false; error: string } {
  if (typed.length > MAX_URL_LENGTH)
    return { ok: false, error: `${quoted(typed)} is longer than ${MAX_URL_LENGTH} characters` };
  if (typed.startsWith('/'))
    return {
      ok: false,
      error: `${quoted(typed)} is a path, not a whole URL: give its hostname too, e.g. https://www.example.com${typed.length > 40 ? '/…' : typed}`,
    };
  if (!URL.canParse(typed))
    return {
      ok: false,
      error: `${quoted(typed)} is not a URL: give each one whole, e.g. ${PURGE_URL_EXAMPLE}`,
    };
  const url = new URL(typed);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      ok: false,
      error: `${quoted(typed)} is not an http or https URL: give each one whole, e.g. ${PURGE_URL_EXAMPLE}`,
    };
  if (url.hostname === '') return { ok: false, error: `${quoted(typed)} has no hostname` };
  if (url.username || url.password)
    return { ok: false, error: `${quoted(typed)} carries a user name or password: leave them out` };
  // The fragment never reaches the platform's cache key.
  url.hash = '';
  return { ok: true, url: url.href };
}

/**
 * The URLs words hold (several to a word when a form's field gives them one a line), checked,
 * each once, in the order given; or the first problem, saying what to type instead.
 */
export function readPurgeUrls(
  words: readonly string[],
): { ok: true; urls: string[] } | { ok: false; error: string } {
  const typed = words.flatMap((word) => word.split(/\s+/)).filter((word) => word !== '');
  const urls: string[] = [];
  for (const word of typed) {
    const read = readPurgeUrl(word);
    if (!read.ok) return read;
    if (!urls.includes(read.url)) urls.push(read.url);
  }
  if (urls.length > MAX_PURGE_URLS)
    return {
      ok: false,
      error: `a purge takes at most ${MAX_PURGE_URLS} URLs and ${urls.length} were given: purge them in several commands, or the whole zone with /edge purge zone PULLZONE_ID`,
    };
  return { ok: true, urls };
}

/** A URL's path with its escapes read once, as a platform that decodes it would read it. */
function decodedPath(url: URL): string {
  try {
    return decodeURIComponent(url.pathname);
  } catch {
    return url.pathname;
  }
}

/**
 * Why a URL purges more than itself, or undefined when it purges only itself. Escaped, as the
 * platform may read it: `%2A` is a *, and a path ending in `%2F`, `/.` or `/..` ends in a folder.
 */
export function purgesMore(url: string): string | undefined {
  if (url.includes('*') || /%2a/i.test(url)) return 'it has a *, which purges every URL it matches';
  if (/\/(\.\.?)?$/.test(decodedPath(new URL(url))))
    return 'its path ends in /, which may purge everything below it, depending on the zone’s query-string setting';
  return undefined;
}
