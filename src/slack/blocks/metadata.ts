/**
 * A form's private_metadata carries the channel it was opened from, and the thread when it was
 * opened from one (view submissions say neither), beside the operation's own state.
 */
export function wrapMetadata(channelId: string, metadata: string, threadTs?: string): string {
  return JSON.stringify({ c: channelId, m: metadata, ...(threadTs ? { t: threadTs } : {}) });
}

export function unwrapMetadata(raw: string | undefined): {
  channelId: string;
  metadata: string;
  threadTs?: string;
} {
  try {
    const parsed: unknown = JSON.parse(raw ?? '');
    if (parsed && typeof parsed === 'object' && 'c' in parsed && 'm' in parsed) {
      const { c, m } = parsed as { c: unknown; m: unknown };
      const t = 't' in parsed ? (parsed as { t: unknown }).t : undefined;
      if (typeof c === 'string' && typeof m === 'string')
        return { channelId: c, metadata: m, ...(typeof t === 'string' && t ? { threadTs: t } : {}) };
    }
  } catch {
    // Not ours: treat the whole string as the operation's metadata.
  }
  return { channelId: '', metadata: raw ?? '' };
}
