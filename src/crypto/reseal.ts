import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { rowsOf } from "../../db/migrate.ts";
import { deployment } from "../../db/schema/index.ts";
import type { Logger } from "../log.ts";
import type { SecretBox } from "./secret-box.ts";

/** Every column that holds a signing secret, with its table's key. */
export const SECRET_COLUMNS = [
  { table: "webhook_endpoints", key: "id", column: "secret" },
  { table: "mailboxes", key: "id", column: "callback_secret" },
  { table: "agent_runtime_bindings", key: "mailbox_id", column: "signing_secret" },
] as const;

const BATCH = 500;

/**
 * At start-up: seals every secret stored in plain text (written before secrets were sealed)
 * and re-seals every one sealed under the previous key, then records the current key id.
 * Idempotent, and safe with several nodes at once (each update is a compare-and-set on the
 * old value). A secret sealed under a key this node does not have stops the start: signing
 * with a secret nobody can read would fail every delivery instead.
 */
export async function resealSecrets(db: Db, box: SecretBox, log: Logger): Promise<number> {
  const like = `sb1.${box.keyId}.%`;
  let changed = 0;
  for (const { table, key, column } of SECRET_COLUMNS) {
    const t = sql.identifier(table);
    const k = sql.identifier(key);
    const c = sql.identifier(column);
    let after = "";
    for (;;) {
      const rows = rowsOf<{ id: string; value: string }>(
        await db.execute(sql`select ${k}::text as id, ${c} as value from ${t} where ${c} is not null and ${c} not like ${like} and ${k}::text > ${after} order by ${k}::text limit ${BATCH}`),
      );
      for (const row of rows) {
        const sealed = box.seal(box.open(row.value));
        await db.execute(sql`update ${t} set ${c} = ${sealed} where ${k}::text = ${row.id} and ${c} = ${row.value}`);
      }
      changed += rows.length;
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
  }
  await db.update(deployment).set({ secretsKeyId: box.keyId });
  if (changed > 0) log.info({ sealed: changed, key_id: box.keyId }, "sealed stored secrets under the current key");
  return changed;
}
