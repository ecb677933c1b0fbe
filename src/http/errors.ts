import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";

export interface RenderedError {
  status: number;
  body: { error: { code: string; message: string; details: Record<string, unknown> } };
  headers: Record<string, string>;
}

interface ValidationIssue {
  path?: string;
  message?: string;
  summary?: string;
}

/**
 * The one place where anything thrown while serving a request becomes the error envelope.
 * `frameworkCode` is Elysia's classification of errors it raised itself.
 */
export function renderError(err: unknown, frameworkCode: string | number, ctx: { method: string; path: string; requestId: string; log: Logger }): RenderedError {
  // Elysia wraps whatever a parse hook throws in a ParseError; our own errors (payload_too_large) keep their code.
  if (frameworkCode === "PARSE" && (err as { cause?: unknown } | null)?.cause instanceof AppError) err = (err as { cause: AppError }).cause;
  if (err instanceof AppError) {
    if (!err.isPublic) ctx.log.error({ err, requestId: ctx.requestId }, "request failed");
    return envelope(err.status, err.isPublic ? err.code : "internal_error", err.isPublic ? err.message : "internal server error", err.isPublic ? err.details : { request_id: ctx.requestId }, err.headers);
  }
  switch (frameworkCode) {
    case "VALIDATION": {
      const v = err as { type?: string; all?: ValidationIssue[] };
      const location = v.type ?? "body";
      const fields = (safeAll(v) ?? []).map((i) => ({
        path: `${location}${i.path && i.path !== "" ? i.path.replace(/\//g, ".") : ""}`,
        message: i.summary ?? i.message ?? "is invalid",
      }));
      const first = fields[0];
      const message = first ? `${first.path}: ${first.message}` : `the request ${location} is invalid`;
      return envelope(400, "validation_error", message, { fields });
    }
    case "PARSE":
      return envelope(400, "invalid_json", "the request body is not valid JSON", {});
    case "NOT_FOUND":
      return envelope(404, "not_found", `no route for ${ctx.method} ${ctx.path}`, {});
    default:
      ctx.log.error({ err, requestId: ctx.requestId, method: ctx.method, path: ctx.path }, "unexpected error");
      return envelope(500, "internal_error", "internal server error", { request_id: ctx.requestId });
  }
}

function safeAll(v: { all?: ValidationIssue[] }): ValidationIssue[] | undefined {
  try {
    return v.all;
  } catch {
    return undefined;
  }
}

function envelope(status: number, code: string, message: string, details: Record<string, unknown>, headers: Record<string, string> = {}): RenderedError {
  return { status, body: { error: { code, message, details } }, headers };
}
