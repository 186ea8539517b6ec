/** The paged envelope of list API keys and list DNS zones, and the ApiErrorData for bad paging. */
import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import { queryNumber, sendApiError } from '../http.js';
import { PagingQuerySchema } from '../vendor-rules.js';

/** The vendor's default page size when `perPage` is absent (reference 02 and 07). */
export const VENDOR_DEFAULT_PER_PAGE = 1000;

export function pageOf<T>(items: readonly T[], page: number, perPage: number) {
  const start = (page - 1) * perPage;
  return {
    Items: items.slice(start, start + perPage),
    CurrentPage: page,
    TotalItems: items.length,
    HasMoreItems: start + perPage < items.length,
  };
}

export function queryProblem(error: z.ZodError): { field: string | null; message: string } {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? String(issue.path[0]) : null;
  return { field, message: `${field ?? 'query'}: ${issue?.message ?? 'invalid value'}` };
}

/**
 * `page` and `perPage` of a vendor list call, `perPage` defaulting as the vendor's does; on a bad
 * value, answers the vendor's validation error and returns undefined.
 */
export function vendorPaging(url: URL, res: ServerResponse): { page: number; perPage: number } | undefined {
  const parsed = PagingQuerySchema.safeParse({
    page: queryNumber(url, 'page'),
    perPage: queryNumber(url, 'perPage') ?? VENDOR_DEFAULT_PER_PAGE,
  });
  if (parsed.success) return parsed.data;
  const { field, message } = queryProblem(parsed.error);
  sendApiError(res, 'validation_error', field, message);
  return undefined;
}
