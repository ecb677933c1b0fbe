import type { components } from "./schema.d.ts";

type Responses = components["responses"];
/** Every error code the OpenAPI document declares (its error responses enumerate them per status). */
export type ErrorCode = {
  [K in keyof Responses]: Responses[K] extends { content: { "application/json": { error: { code: infer C } } } } ? C : never;
}[keyof Responses];

/** An error answer of the API: the envelope's code, message and details, with the HTTP status. */
export class MailroomError extends Error {
  override readonly name = "MailroomError";
  readonly status: number;
  /** The envelope's stable code (`validation_error`, `address_suppressed`, `outbound_disabled`, …); `http_<status>` for an answer without the envelope. */
  readonly code: ErrorCode | (string & {});
  readonly details: Record<string, unknown>;
  readonly requestId: string | null;
  /** Seconds from Retry-After, when the answer carried one. */
  readonly retryAfter: number | null;

  constructor(init: { status: number; code: ErrorCode | (string & {}); message: string; details?: Record<string, unknown>; requestId?: string | null; retryAfter?: number | null }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.requestId = init.requestId ?? null;
    this.retryAfter = init.retryAfter ?? null;
  }

  /** The error of a non-2xx response; `body` is its parsed JSON when already read. */
  static from(response: Response, body: unknown): MailroomError {
    const env = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
    const retry = Number(response.headers.get("retry-after"));
    return new MailroomError({
      status: response.status,
      code: typeof env?.code === "string" ? env.code : `http_${response.status}`,
      message: typeof env?.message === "string" ? env.message : `HTTP ${response.status} ${response.statusText}`.trim(),
      details: env?.details && typeof env.details === "object" ? (env.details as Record<string, unknown>) : {},
      requestId: response.headers.get("x-request-id"),
      retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
    });
  }
}

/** Narrows an unknown error to a MailroomError, of one code when given. */
export const isMailroomError = (err: unknown, code?: ErrorCode): err is MailroomError => err instanceof MailroomError && (code === undefined || err.code === code);

/** A webhook whose signature, timestamp or headers do not check out. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}
