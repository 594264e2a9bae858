import { FlagError } from './flag-values.js';

export const LIST_PAGE_SIZE_HELP =
  "Objects a page when listing the cluster's collections for the caches; 0 lists each collection in one request (Tandem)";

/**
 * `--list-page-size`: a whole number of objects a page from 0 (0: unpaginated lists); the
 * default is `@tandem/kube`'s `DEFAULT_LIST_PAGE_SIZE`, client-go's.
 */
export function parseListPageSize(
  text: string,
  flag = 'list-page-size',
): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw new FlagError(
      `--${flag} must be a whole number of objects a page (0: unpaginated), got '${text}'`,
    );
  return value;
}
