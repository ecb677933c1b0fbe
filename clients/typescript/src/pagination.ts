/** One page of a paginated list: the service's `{items, page, limit, total, total_pages}`. */
export interface Page<T> {
  items: T[];
  page: number | string;
  total_pages: number | string;
}

/**
 * Every item of a paginated list, page by page, fetching the next page only when the caller
 * gets there. `fetchPage(n)` asks for page n. Stops at the last page, or at an empty one (the
 * list shrank while it was read).
 */
export async function* paginate<T>(fetchPage: (page: number) => Promise<Page<T>>, options: { startPage?: number; maxItems?: number } = {}): AsyncGenerator<T, void, undefined> {
  let page = options.startPage ?? 1;
  let left = options.maxItems ?? Infinity;
  for (;;) {
    const result = await fetchPage(page);
    for (const item of result.items) {
      if (left-- <= 0) return;
      yield item;
    }
    if (result.items.length === 0 || Number(result.page) >= Number(result.total_pages)) return;
    page = Number(result.page) + 1;
  }
}

/** Collects an async iterator into an array (at most `max` items). */
export async function collect<T>(items: AsyncIterable<T>, max = Infinity): Promise<T[]> {
  const out: T[] = [];
  if (max <= 0) return out;
  for await (const item of items) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}
