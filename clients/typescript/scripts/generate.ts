/**
 * Regenerates src/schema.d.ts from the service's own OpenAPI document: starts the service
 * in-process (embedded in-memory database, ports chosen by the system), reads /openapi.json
 * and runs openapi-typescript over it. `bun clients/typescript/scripts/generate.ts` from the
 * repository root (or `bun run client:generate`); test/client-schema.test.ts fails when the
 * committed file differs from what this writes.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

export const SCHEMA_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "schema.d.ts");

const HEADER = `/**
 * Generated from Mailroom's OpenAPI document (GET /openapi.json) by
 * clients/typescript/scripts/generate.ts. Do not edit: run the script.
 */

`;

/** The TypeScript types of one OpenAPI document, as the committed file holds them. */
export async function renderSchema(document: unknown): Promise<string> {
  const ast = await openapiTS(document as never, { alphabetize: false, exportType: false });
  return HEADER + astToString(ast);
}

/** /openapi.json of a service started here and stopped again. */
export async function fetchDocument(): Promise<unknown> {
  const { loadConfig } = await import("../../../src/config.ts");
  const { startService } = await import("../../../src/service.ts");
  const dataDir = mkdtempSync(join(tmpdir(), "mailroom-generate-"));
  const secret = randomBytes(24).toString("hex");
  const service = await startService(
    loadConfig({ PORT: "0", SMTP_PORT: "0", HOST: "127.0.0.1", ADMIN_TOKEN: `gen-${secret}`, SECRETS_KEY: secret, DATA_DIR: dataDir, PGLITE_IN_MEMORY: "true", LOG_LEVEL: "silent" }),
  );
  try {
    const res = await fetch(`http://127.0.0.1:${service.httpPort}/openapi.json`);
    if (!res.ok) throw new Error(`GET /openapi.json answered ${res.status}`);
    return await res.json();
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const text = await renderSchema(await fetchDocument());
  writeFileSync(SCHEMA_FILE, text);
  console.log(`wrote ${SCHEMA_FILE} (${text.length} characters)`);
  process.exit(0);
}
