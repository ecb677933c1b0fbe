/**
 * The closed set of error codes the API can answer with, and their HTTP status.
 * Domain code throws AppError; the HTTP layer renders it in one place (src/http/errors.ts).
 */
export const ERROR_STATUS = {
  validation_error: 400,
  invalid_json: 400,
  schema_validation_failed: 400,
  unknown_action: 400,
  reply_not_supported: 400,
  invalid_reply_token: 400,
  missing_authorization: 401,
  invalid_authorization: 401,
  invalid_token: 401,
  forbidden: 403,
  outbound_disabled: 403,
  /** A runtime in draft-first mode may not send a draft: a person approves it. */
  approval_required: 403,
  mailbox_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  slug_taken: 409,
  label_exists: 409,
  action_exists: 409,
  address_suppressed: 409,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  /** The mailbox already has WEBHOOK_MAX_ENDPOINTS_PER_MAILBOX endpoints. */
  webhook_endpoint_limit: 409,
  expired_reply_token: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  override name = "AppError";
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetails = {},
    /** Extra response headers, such as Retry-After on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }

  /** Client errors are safe to show as they are; server faults are logged and masked. */
  get isPublic(): boolean {
    return this.status < 500;
  }
}

export const notFound = (what: string, id?: string) =>
  new AppError("not_found", id ? `${what} ${id} was not found` : `${what} was not found`, id ? { id } : {});

export const validationError = (message: string, fields: { path: string; message: string }[] = []) =>
  new AppError("validation_error", message, { fields });

/** Postgres unique_violation, as surfaced by both postgres.js and PGlite (possibly wrapped by drizzle). */
export function uniqueViolation(err: unknown): { constraint?: string } | undefined {
  for (let e: any = err; e; e = e.cause) {
    if (e.code === "23505") return { constraint: e.constraint_name ?? e.constraint };
  }
  return undefined;
}
