/**
 * A form's private_metadata carries the channel it was opened from (view submissions do
 * not say) beside the operation's own state.
 */
export function wrapMetadata(channelId: string, metadata: string): string {
  return JSON.stringify({ c: channelId, m: metadata });
}

export function unwrapMetadata(raw: string | undefined): { channelId: string; metadata: string } {
  try {
    const parsed: unknown = JSON.parse(raw ?? '');
    if (parsed && typeof parsed === 'object' && 'c' in parsed && 'm' in parsed) {
      const { c, m } = parsed as { c: unknown; m: unknown };
      if (typeof c === 'string' && typeof m === 'string') return { channelId: c, metadata: m };
    }
  } catch {
    // Not ours: treat the whole string as the operation's metadata.
  }
  return { channelId: '', metadata: raw ?? '' };
}
