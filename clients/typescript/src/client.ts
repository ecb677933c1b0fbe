import createFetchClient, { type Client } from "openapi-fetch";
import { MailroomError } from "./errors.ts";
import type { paths } from "./schema.d.ts";

export type Fetch = (request: Request) => Promise<Response>;

export interface MailroomClientOptions {
  /** Base URL of the service, e.g. http://localhost:3000 (default: $MAILROOM_URL, else http://localhost:3000). */
  baseUrl?: string;
  /** The admin token or a mailbox API key (default: $MAILROOM_TOKEN). */
  token?: string;
  /** A fetch of your own (tests, proxies, or the service's own app.handle in-process). */
  fetch?: Fetch;
  /**
   * Idempotency-Key for every POST, PUT, PATCH and DELETE that has none: a fresh UUID per call
   * (default), a function making one, or false for none. Retries of one call reuse its key.
   */
  idempotencyKey?: false | (() => string);
  /** Retries of a call that failed on the network, or got 503 or 409 `idempotency_key_in_use` (default 2). */
  retries?: number;
  /** The longest Retry-After (seconds) a retry waits for; a longer one is returned as the error (default 10). */
  maxRetryAfter?: number;
  headers?: Record<string, string>;
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export type MailroomApi = Client<paths>;

/**
 * The generated client (openapi-fetch over the committed schema types) with the service's
 * conventions: bearer auth, an Idempotency-Key per mutating call, and retries that reuse it,
 * so a retried send can never send twice.
 */
export function createApi(options: MailroomClientOptions = {}): MailroomApi {
  const env = typeof process !== "undefined" ? process.env : {};
  const baseUrl = (options.baseUrl ?? env.MAILROOM_URL ?? "http://localhost:3000").replace(/\/+$/, "");
  const token = options.token ?? env.MAILROOM_TOKEN;
  const makeKey = options.idempotencyKey === false ? null : (options.idempotencyKey ?? (() => crypto.randomUUID()));
  const base = options.fetch ?? ((request: Request) => fetch(request));
  const retries = options.retries ?? 2;
  const maxRetryAfter = options.maxRetryAfter ?? 10;

  const send: Fetch = async (request) => {
    if (makeKey && MUTATING.has(request.method) && !request.headers.has("idempotency-key")) {
      const headers = new Headers(request.headers);
      headers.set("idempotency-key", makeKey());
      request = new Request(request, { headers });
    }
    for (let attempt = 0; ; attempt++) {
      const copy = (attempt < retries ? request.clone() : request) as Request;
      let response: Response;
      try {
        response = await base(copy);
      } catch (err) {
        if (attempt >= retries || request.signal?.aborted) throw err;
        await sleep(250 * 2 ** attempt);
        continue;
      }
      if (attempt >= retries || !(await retryable(response))) return response;
      const wait = Number(response.headers.get("retry-after")) || 1;
      if (wait > maxRetryAfter) return response;
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  };

  const headers: Record<string, string> = { ...options.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  return createFetchClient<paths>({ baseUrl, fetch: send, headers });
}

async function retryable(response: Response): Promise<boolean> {
  if (response.status === 503) return true;
  if (response.status !== 409) return false;
  const body = await response.clone().json().catch(() => undefined);
  return (body as { error?: { code?: string } } | undefined)?.error?.code === "idempotency_key_in_use";
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The data of an openapi-fetch result, or its error thrown as a MailroomError:
 * `const { account } = await unwrap(api.POST("/v1/accounts", { body }))`.
 */
export async function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(call: Promise<R>): Promise<NonNullable<R["data"]>> {
  const result = await call;
  if (!result.response.ok) throw MailroomError.from(result.response, result.error);
  return result.data as NonNullable<R["data"]>;
}
