import { ActorActivationError, ActorStoppedError, ActorTimeoutError, NotOwnerError, PlacementOutcomeUnknownError, PlacementUnavailableError } from "../../actors/runtime/index.ts";
import { AppError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { fieldErrors, MAX_FIELDS, type FieldError } from "./validation.ts";

export interface RenderedError {
  status: number;
  body: { error: { code: string; message: string; details: Record<string, unknown> } };
  headers: Record<string, string>;
}


/**
 * The one place where anything thrown while serving a request becomes the error envelope.
 * `frameworkCode` is Elysia's classification of errors it raised itself.
 */
export function renderError(err: unknown, frameworkCode: string | number, ctx: { method: string; path: string; requestId: string; log: Logger }): RenderedError {
  // Elysia wraps whatever a parse hook throws in a ParseError, and an actor wraps what its
  // activation throws (a 404 for a mailbox that does not exist): our own errors keep their code.
  if ((frameworkCode === "PARSE" || err instanceof ActorActivationError) && (err as { cause?: unknown } | null)?.cause instanceof AppError) {
    err = (err as { cause: AppError }).cause;
  }
  if (err instanceof PlacementOutcomeUnknownError) {
    // Started on a node that then lost the mailbox before answering: its one transaction
    // either committed or not; nothing is half-applied, but which is not known here.
    err = new AppError("service_unavailable", "the node running this request stopped before answering; it was applied entirely or not at all", { applied: "unknown" }, { "Retry-After": "2" });
  }
  const unrun = notRun(err);
  if (unrun) {
    ctx.log.warn({ err, requestId: ctx.requestId }, "request refused: its command was not run");
    return envelope(unrun.status, unrun.code, unrun.message, unrun.details, unrun.headers);
  }
  if (err instanceof AppError) {
    const e = err.code === "validation_error" ? locateFields(err) : err;
    if (!e.isPublic) ctx.log.error({ err: e, requestId: ctx.requestId }, "request failed");
    if (e.isPublic || e.code === "service_unavailable") return envelope(e.status, e.code, e.message, e.details, e.headers);
    return envelope(500, "internal_error", "internal server error", { request_id: ctx.requestId }, e.headers);
  }
  switch (frameworkCode) {
    case "VALIDATION": {
      // Query, params and headers (bodies are checked before Elysia sees them), rendered from the
      // first errors only, never quoting the value; TypeBox can report one field more than once
      // (missing, then wrong type): the first is kept.
      const v = err as { type?: string; validator?: { Errors?(value: unknown): Iterable<never> }; value?: unknown };
      const location = v.type ?? "body";
      const fields = safeErrors(v, location);
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

/**
 * An actor command that never ran, because it waited in the inbox past its deadline or the
 * node is stopping, as the 503 a client can act on: nothing was applied, retry after the
 * given delay. undefined for anything else. A command that started is never reported here:
 * its caller waits for its real outcome (actors/runtime, AskOptions).
 */
export function notRun(err: unknown): AppError | undefined {
  if (err instanceof ActorTimeoutError) {
    const retryAfter = String(Math.max(1, Math.ceil(err.timeoutMs / 1000)));
    return new AppError("service_unavailable", "the mailbox is busy; the request was not applied, retry later", { applied: false }, { "Retry-After": retryAfter });
  }
  // Cluster: no node holding the mailbox answered in time (or the one asked no longer held it).
  if (err instanceof PlacementUnavailableError || err instanceof NotOwnerError) {
    const retryAfter = String(Math.max(1, Math.ceil((err instanceof PlacementUnavailableError ? err.retryAfterMs : 1000) / 1000)));
    return new AppError("service_unavailable", "the node holding this mailbox could not be reached in time; the request was not applied, retry shortly", { applied: false }, { "Retry-After": retryAfter });
  }
  if (err instanceof ActorStoppedError) {
    return new AppError("service_unavailable", "the service is shutting down; the request was not applied, retry shortly", { applied: false }, { "Retry-After": "2" });
  }
  return undefined;
}

const LOCATIONS = /^(body|params|query|headers)(\.|$)/;
// A domain check that reports every problem (autopilot rules) still answers a bounded list.
const MAX_DOMAIN_FIELDS = 5 * MAX_FIELDS;

/**
 * Field paths read `{location}.{field}` (body.slug, params.mailboxId), whether the schema
 * or the domain refused the value. Domain rules know fields but not where a request put
 * them; every field the domain checks comes from the JSON body.
 */
function locateFields(err: AppError): AppError {
  const fields = err.details.fields;
  if (!Array.isArray(fields)) return err;
  const located = fields.slice(0, MAX_DOMAIN_FIELDS).map((f: { path?: string }) => (typeof f.path === "string" && !LOCATIONS.test(f.path) ? { ...f, path: `body.${f.path}` } : f));
  const omitted = fields.length - located.length;
  return new AppError(err.code, err.message, { ...err.details, fields: located, ...(omitted > 0 ? { omitted_fields: omitted } : {}) }, err.headers);
}

function safeErrors(v: { validator?: { Errors?(value: unknown): Iterable<never> }; value?: unknown }, location: string): FieldError[] {
  try {
    return v.validator?.Errors ? fieldErrors(v.validator.Errors(v.value), location) : [];
  } catch {
    return [];
  }
}

function envelope(status: number, code: string, message: string, details: Record<string, unknown>, headers: Record<string, string> = {}): RenderedError {
  return { status, body: { error: { code, message, details } }, headers };
}
