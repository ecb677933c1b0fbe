import { asc, eq, inArray } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { labels, messageLabels, threadLabels } from "../../db/schema/index.ts";
import { AppError } from "../errors.ts";

const COLOR_RE = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/;

/** A label name is trimmed, 1-64 characters, without control characters; compared case-insensitively. */
export function checkLabel(name: string, color: string | null | undefined): { name: string; nameKey: string; color: string | null } {
  const trimmed = name.trim();
  // biome-ignore lint: control characters are exactly what this refuses
  if (trimmed.length === 0 || trimmed.length > 64 || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) {
    throw new AppError("validation_error", "label name must be 1 to 64 characters without control characters", { fields: [{ path: "body.name", message: "1 to 64 characters, no control characters" }] });
  }
  const c = color?.trim().toLowerCase() ?? null;
  if (c !== null && !COLOR_RE.test(c)) {
    throw new AppError("validation_error", "color must be a hex colour like #1a73e8 or #fa0", { fields: [{ path: "body.color", message: "a hex colour: #rgb or #rrggbb" }] });
  }
  return { name: trimmed, nameKey: trimmed.toLowerCase(), color: c };
}

type Reader = Pick<Tx, "select">;

/** Label ids applied to each message, by label name. */
export const messageLabelIds = (db: Reader, messageIds: string[]) => labelIdsOf(db, messageLabels, messageLabels.messageId, messageLabels.labelId, messageIds);

/** Label ids applied to each thread, by label name. */
export const threadLabelIds = (db: Reader, threadIds: string[]) => labelIdsOf(db, threadLabels, threadLabels.threadId, threadLabels.labelId, threadIds);

async function labelIdsOf(
  db: Reader,
  links: typeof messageLabels | typeof threadLabels,
  ownerColumn: typeof messageLabels.messageId | typeof threadLabels.threadId,
  labelColumn: typeof messageLabels.labelId | typeof threadLabels.labelId,
  ownerIds: string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ownerIds.length === 0) return out;
  const rows = await db
    .select({ owner: ownerColumn, labelId: labelColumn })
    .from(links)
    .innerJoin(labels, eq(labels.id, labelColumn))
    .where(inArray(ownerColumn, ownerIds))
    .orderBy(asc(labels.nameKey), asc(labels.id));
  for (const r of rows) (out.get(r.owner) ?? out.set(r.owner, []).get(r.owner)!).push(r.labelId);
  return out;
}
