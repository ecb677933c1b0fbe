import { createHash } from "node:crypto";
import { join } from "node:path";
import { RULES } from "../mail/assess/rules.ts";

/**
 * Every signal with its severity and meaning, from the rule table itself, so the console
 * explains signals in the words the assessment documents and never drifts from it.
 */
const signalTable = () => ({
  ...Object.fromEntries(RULES.map((r) => [r.signal, { severity: r.severity, description: r.description }])),
  processing_failed: { severity: "medium", description: "Processing ended without success, so the content of the message was never assessed." },
  autopilot_blocked: { severity: "info", description: "An autopilot rule of this mailbox blocked the message: triaged spam, no auto-reply, not routed to the agent runtime." },
});

/** One built asset of the console, kept in memory and served with a strong ETag. */
export interface ConsoleAsset {
  body: Uint8Array;
  /** The same bytes gzipped once at build, for clients that accept it. */
  gzip: Uint8Array;
  type: string;
  etag: string;
}

export interface ConsoleBundle {
  js: ConsoleAsset;
  css: ConsoleAsset;
}

const UI_DIR = join(import.meta.dir, "..", "..", "console");

const asset = (body: Uint8Array, type: string): ConsoleAsset => ({ body, gzip: Bun.gzipSync(body as Uint8Array<ArrayBuffer>, { level: 9 }), type, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` });

/**
 * Bundles the console (Preact, JSX) with Bun's bundler: one minified script and the stylesheet
 * next to it. Everything comes from the repository and node_modules, so it works offline.
 */
export async function buildConsole(): Promise<ConsoleBundle> {
  const result = await Bun.build({
    entrypoints: [join(UI_DIR, "main.tsx")],
    target: "browser",
    format: "esm",
    minify: true,
    sourcemap: "none",
    define: { "process.env.NODE_ENV": '"production"', MAILROOM_SIGNALS: JSON.stringify(signalTable()) },
  });
  if (!result.success) throw new AggregateError(result.logs, "the console did not build");
  const script = result.outputs.find((o) => o.kind === "entry-point");
  if (!script) throw new Error("the console build produced no script");
  const css = await Bun.file(join(UI_DIR, "console.css")).bytes();
  return { js: asset(new Uint8Array(await script.arrayBuffer()), "text/javascript; charset=utf-8"), css: asset(css, "text/css; charset=utf-8") };
}

/**
 * Built once, on the first request that needs it (the service's start-up stays as fast as
 * before for deployments that never open the console); a failed build is retried next time.
 */
export function lazyConsole(build: () => Promise<ConsoleBundle> = buildConsole): () => Promise<ConsoleBundle> {
  let pending: Promise<ConsoleBundle> | undefined;
  return () => {
    pending ??= build().catch((err) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
