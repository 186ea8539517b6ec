import { z } from 'zod';
import type { ReplyButton } from '../../reply/model.js';

/** --page and --per-page as the list operations take them (spec: page ≥ 1, per page 5–1000). */
export const PagingArgsSchema = z.object({
  page: z
    .number()
    .int({ error: '--page must be a whole number' })
    .min(1, { error: '--page starts at 1' })
    .default(1),
  perPage: z
    .number()
    .int({ error: '--per-page must be a whole number' })
    .min(5, { error: '--per-page must be between 5 and 1000' })
    .max(1000, { error: '--per-page must be between 5 and 1000' })
    .default(10),
});

export const pagingFlags = { page: { kind: 'number' }, 'per-page': { kind: 'number' } } as const;

/** Previous/Next buttons whose value is the state needed to fetch that page again. */
export function pagingButtons<T extends { page: number }>(
  actionId: string,
  state: T,
  hasMore: boolean,
): ReplyButton[] {
  const buttons: ReplyButton[] = [];
  if (state.page > 1)
    buttons.push({ text: '◀ Previous', actionId, value: JSON.stringify({ ...state, page: state.page - 1 }) });
  if (hasMore)
    buttons.push({ text: 'Next ▶', actionId, value: JSON.stringify({ ...state, page: state.page + 1 }) });
  return buttons;
}

/** `Page 2 of 3`, or `Page 2` when the vendor gave no total. */
export const pageWhere = (page: number, pages: number | undefined): string =>
  pages === undefined ? `Page ${page}` : `Page ${page} of ${pages}`;

/**
 * The sentence that follows a page's own words when the page asked for was past the last one
 * and the last is shown instead (lastPageInstead): ` There is no page 99: the last page is 2.`
 */
export const pastLastPage = (asked: number | undefined, shown: number): string =>
  asked === undefined || asked === shown ? '' : ` There is no page ${asked}: the last page is ${shown}.`;

/** What one page of a vendor listing says about the whole; the vendor requires none of its counts. */
export function pageFacts(
  list: { Items: readonly unknown[]; TotalItems?: number; HasMoreItems?: boolean },
  paging: { page: number; perPage: number },
): { total?: number; pages?: number; hasMore: boolean; where: string } {
  const total = list.TotalItems;
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / paging.perPage));
  return {
    total,
    pages,
    // Without HasMoreItems, a full page may well have a next one.
    hasMore: list.HasMoreItems ?? list.Items.length >= paging.perPage,
    where: pageWhere(paging.page, pages),
  };
}

/**
 * The last page, when the one asked for is past it (`--page 99` of 2): the caller shows that
 * page instead of an empty one, saying so (pastLastPage), so "Page 99 of 2" never appears.
 * Undefined when the page is fine or the vendor gave no total.
 */
export function lastPageInstead(
  page: number,
  total: number | null | undefined,
  perPage: number,
): number | undefined {
  if (total == null || total === 0) return undefined;
  const pages = Math.max(1, Math.ceil(total / perPage));
  return page > pages ? pages : undefined;
}

/** Reads a paging button's value back, refusing anything that is not what we wrote. */
export function readPagingState<S extends z.ZodType>(schema: S, value: string): z.infer<S> | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
