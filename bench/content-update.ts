/**
 * What PostgreSQL spends on the statement that stores a processed message's content
 * (src/mail/content.ts), and how much of it is the full-text vector: the same update of the
 * bench message's parsed content, run on fresh databases that differ in one thing each.
 *
 *   bun bench/content-update.ts [--n 400] [--message big|small] [--variants store-content,as-is,no-gin,no-vector,no-extracted]
 *
 * - store-content: the service's own statement (storeContent, SEARCH_VECTOR=database), so
 *   that two checkouts can be compared by running this file in each;
 * - pieces: the service's statement with the text part in pieces, as its parser threads make
 *   them (SEARCH_VECTOR=service): the lexicon learns each text's new words from the statement's
 *   answer, as the service's does, so the measured updates see the words it already knows;
 * - as-is: the same columns by a plain update, each text sent as it is (the vector trigger of
 *   migration 0018 computes the text part with PostgreSQL's parser);
 * - no-gin: without the vector's GIN index (what indexing the lexemes costs);
 * - no-vector: without the vector's triggers (what the rest of the row costs: the heap and
 *   TOAST writes, the other indexes);
 * - no-extracted: extracted_text left null (the vector reads text_body instead), so the text
 *   is stored once rather than twice.
 *
 * Printed per variant: CPU per update of the statement's backend and of this process. Each
 * update sets a text that starts with a number of its own, as every message's text differs.
 * PostgreSQL must run on this machine (its backend's CPU is read from /proc).
 */
import { parseArgs } from "node:util";
import { sql as sqlOf } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase } from "../db/client.ts";
import { migrate, rowsOf } from "../db/migrate.ts";
import { storeContent } from "../src/mail/content.ts";
import { tokenizeText } from "../src/mail/text-vector.ts";
import { textVectorPieces, WordLexicon } from "../src/mail/text-vector-pieces.ts";
import { parseInline } from "../src/mail/parse/convert.ts";
import { cpuUs } from "./cluster-lib.ts";
import { benchMessage, freshDatabase, smallBenchMessage } from "./lib.ts";

const VARIANTS = ["store-content", "pieces", "as-is", "no-gin", "no-vector", "no-extracted"] as const;
type Variant = (typeof VARIANTS)[number];

const { values } = parseArgs({ options: { n: { type: "string", default: "400" }, message: { type: "string", default: "big" }, variants: { type: "string", default: VARIANTS.join(",") } } });
const n = Number(values.n);
if (values.message !== "big" && values.message !== "small") throw new Error("--message is big or small");
const variants = values.variants.split(",") as Variant[];
for (const v of variants) if (!VARIANTS.includes(v)) throw new Error(`--variants: one of ${VARIANTS.join(", ")}`);

const raw = new Uint8Array(await (values.message === "small" ? smallBenchMessage : benchMessage)("bench@mail.localhost", "prose"));
const mail = await parseInline(raw);
const text = mail.text ?? "";
const WARM = 30;

/** CPU milliseconds of a process so far. */
const cpuOf = (pid: number) => cpuUs(pid) / 1000;

async function run(variant: Variant): Promise<{ pg: number; client: number }> {
  const fresh = await freshDatabase();
  const database = await openDatabase({ databaseUrl: fresh.url, dataDir: "/tmp" });
  await migrate(database.db);
  await database.close();
  const sql = postgres(fresh.url, { max: 1, onnotice: () => {} });
  // store-content runs on the service's own client (one connection, so one backend to read).
  const service = variant === "store-content" || variant === "pieces" ? await openDatabase({ databaseUrl: fresh.url, dataDir: "/tmp", poolSize: 1 }) : undefined;
  try {
    const pid = (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0]!.pid;
    const account = crypto.randomUUID();
    const mailbox = crypto.randomUUID();
    await sql`insert into accounts (id, slug, display_name) values (${account}, 'bench', 'bench')`;
    await sql`insert into mailboxes (id, account_id, slug, kind, email_address, protocol_host) values (${mailbox}, ${account}, 'bench', 'agent', 'bench@mail.localhost', 'bench.mail.localhost')`;
    // The rows as arrival leaves them (the raw bytes each refers to are a stand-in).
    await sql`insert into blobs (sha256, size, bytes) select 'raw-' || g, 1, '\\x00'::bytea from generate_series(1, ${n + WARM}) g`;
    const ids = Array.from({ length: n + WARM }, () => crypto.randomUUID());
    await sql`
      insert into messages (id, mailbox_id, transport, direction, status, from_address, to_address, subject, raw_sha256, raw_size)
      select id, ${mailbox}, 'smtp', 'inbound', 'received', 'sender@example.com', 'bench@mail.localhost', 'Quarterly figures', 'raw-' || ord, ${raw.byteLength}
      from unnest(${ids}::uuid[]) with ordinality as t(id, ord)`;
    if (variant === "no-gin") await sql`drop index messages_search_tsv_idx`;
    if (variant === "no-vector") {
      await sql`drop trigger messages_search_tsv_update on messages`;
      await sql`drop trigger messages_search_tsv_insert on messages`;
    }
    const pidOf = async () => {
      if (!service) return pid;
      return rowsOf<{ pid: number }>(await service.db.execute(sqlOf`select pg_backend_pid() as pid`))[0]!.pid;
    };
    const backend = await pidOf();
    const lexicon = new WordLexicon();
    const parsed = { headers: mail.headers, messageIdHeader: null, inReplyTo: null, references: [], subject: "Quarterly figures", fromAddress: "sender@example.com", fromName: null, toAddresses: ["bench@mail.localhost"], ccAddresses: [], replyTo: [], htmlBody: null, quotedText: null, snippet: "", attachments: [{ filename: "figures.pdf", mimeType: "application/pdf", size: 1, contentId: null, sha256: null, rawOffset: 0, rawLength: 1, transferEncoding: "base64" as const }] };
    const update = (i: number) => {
      const body = `${i} ${text}`;
      if (variant === "pieces") {
        const split = tokenizeText(body);
        const pieces = split ? textVectorPieces(split, lexicon, true) : null;
        return storeContent(service!.db, ids[i]!, { ...parsed, textBody: body, extractedText: body }, "sender@example.com", { pieces, learned: (words) => lexicon.learn(words) });
      }
      if (service) return storeContent(service.db, ids[i]!, { ...parsed, textBody: body, extractedText: body }, "sender@example.com");
      return sql`
        update messages set from_address = 'sender@example.com', subject = 'Quarterly figures', cc = '[]'::jsonb,
          text_body = ${body}, extracted_text = ${variant === "no-extracted" ? null : body}, headers = ${sql.json(mail.headers as never)}, attachment_names = 'figures.pdf'
        where id = ${ids[i]!}`;
    };
    for (let i = 0; i < WARM; i++) await update(i);
    const pg0 = cpuOf(backend);
    const client0 = process.cpuUsage();
    for (let i = WARM; i < n + WARM; i++) await update(i);
    const client = process.cpuUsage(client0);
    return { pg: (cpuOf(backend) - pg0) / n, client: (client.user + client.system) / 1000 / n };
  } finally {
    await service?.close();
    await sql.end();
    await fresh.drop();
  }
}

console.log(`content update: ${values.message} message (${text.length} characters of prose), ${n} updates per variant; CPU ms per update`);
for (const variant of variants) {
  const { pg, client } = await run(variant);
  console.log(`  ${variant.padEnd(13)} PostgreSQL backend ${pg.toFixed(2)} ms, this process ${client.toFixed(2)} ms`);
}
