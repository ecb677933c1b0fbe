/** Time-ordered UUIDs (v7) keep primary-key indexes append-mostly. */
export const newId = (): string => Bun.randomUUIDv7();

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);
