import { Elysia } from "elysia";
import type { Mailboxes } from "../../actors/mailbox/client.ts";
import type { Authenticator, Principal } from "../auth/authenticate.ts";
import type { Owners } from "../domain/owners.ts";
import { AppError, validationError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { BodyRefusal, mediaType, readBounded, readJsonBody, type RouteBody } from "./body.ts";
import { printable, storable } from "./json-bounds.ts";
import type { JsonIntake } from "./json-intake.ts";
import { notRun, renderError } from "./errors.ts";
import { splicedParts } from "./spliced-json.ts";
import { fingerprint, IDEMPOTENCY_HEADER, readIdempotencyKey, type Claim, type IdempotencyStore } from "./idempotency.ts";
import { authRuleFor, capabilityFor, TIER_CAPABILITIES } from "./route-auth.ts";
import type { RuntimeAccess } from "../domain/runtime-binding.ts";
import type { RateDecision } from "../domain/rate-limit.ts";

export interface PipelineDeps {
  authenticator: Authenticator;
  mailboxes: Mailboxes;
  owners: Owners;
  idempotency: IdempotencyStore;
  log: Logger;
  maxJsonBytes: number;
  /** Parses JSON bodies, the large ones off the event loop. */
  json: JsonIntake;
  /** Raw messages posted to the HTTP ingress (message/rfc822). */
  maxMessageBytes: number;
  /** What a route ("METHOD /path") takes as its body: raw media types, the schema's check. */
  bodyOf: (routeKey: string) => RouteBody | undefined;
}

/** Lifecycle hooks for the routes that change something (see `mutation` below). */
export interface MutationHooks {
  beforeHandle(ctx: object): Promise<Response | undefined>;
  afterHandle(ctx: object): Promise<void>;
}

/** What `derive` adds to every request's context. */
export interface DerivedContext {
  request: Request;
  principal: Principal | null;
  /** Set when the caller is an agent runtime's key: its tier (already checked) and policy mode. */
  runtime: RuntimeAccess | null;
  idempotency: { key: string; fingerprint: string } | null;
  /** Large body fields the JSON worker handed over as UTF-8 bytes, taken out of the body (RouteBody.texts). */
  texts: Record<string, Uint8Array> | null;
}

/** What the pipeline knows of one request, across its hooks. */
interface RequestState {
  id: string;
  claim?: Claim;
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is well-formed, else a new one. */
export const requestIdOf = (given: string | null): string => (given && REQUEST_ID_RE.test(given) ? given : crypto.randomUUID());

/**
 * The request pipeline every route runs through, in order:
 * body (bounded, by content type; src/http/body.ts) → request id → auth (route table) →
 * API-key rate window → path and query checks → mailbox scope → deferred body refusal →
 * schema validation (Elysia) → idempotency claim (routes that change
 * something) → handler → idempotency record. Errors from any step become the envelope in one place.
 */
export function requestPipeline(deps: PipelineDeps) {
  const state = new WeakMap<Request, RequestState>();
  const stateOf = (request: Request): RequestState => {
    let s = state.get(request);
    if (!s) {
      s = { id: requestIdOf(request.headers.get("x-request-id")) };
      state.set(request, s);
    }
    return s;
  };

  const plugin = new Elysia({ name: "request-pipeline" })
    // Whatever this returns (but undefined, for no body at all) is the body, so Elysia's own
    // parsers never see one. Only a body over its size limit is refused before auth.
    .onParse({ as: "global" }, async ({ request, route }) => {
      const media = mediaType(request.headers.get("content-type"));
      const routeBody = deps.bodyOf(`${request.method} ${route}`);
      const raw = routeBody?.raw;
      if (raw) {
        if (raw.includes(media)) return readBounded(request, deps.maxMessageBytes, "messages");
        if (!request.body) return undefined;
        return new BodyRefusal(new AppError("unsupported_media_type", `this route takes ${raw.join(" or ")}`, { accepted: raw }));
      }
      return readJsonBody(request, media, deps.maxJsonBytes, deps.json, routeBody?.wireSchema, routeBody?.texts);
    })
    // The request id header is set here and in onError, which together see every request;
    // an onRequest hook for it would cost every request one more step.
    .derive({ as: "global" }, async ({ request, route, params, query, body, headers, path, set }) => {
      set.headers["x-request-id"] = stateOf(request).id;
      const rule = authRuleFor(request.method, route);
      let principal: Principal | null = null;
      let runtime: RuntimeAccess | null = null;
      if (rule.level !== "public") {
        const authenticated = deps.authenticator.authenticate(headers.authorization);
        principal = authenticated instanceof Promise ? await authenticated : authenticated;
        if (principal.kind === "key") {
          const decision: RateDecision & { runtime?: RuntimeAccess | null } = principal.runtime
            ? await deps.mailboxes.admitRuntime(principal.mailboxId, principal.keyId)
            : await deps.mailboxes.admit(principal.mailboxId, principal.keyId);
          set.headers["x-ratelimit-limit"] = String(decision.limit);
          set.headers["x-ratelimit-remaining"] = String(decision.remaining);
          set.headers["x-ratelimit-reset"] = String(Math.ceil(decision.resetInMs / 1000));
          if (!decision.allowed) {
            throw new AppError("rate_limit_exceeded", `this API key may make ${decision.limit} calls per window; retry later`, { limit: decision.limit }, { "Retry-After": String(Math.max(1, Math.ceil(decision.resetInMs / 1000))) });
          }
          // Counted first (every call a key makes counts), then checked before anything is looked up.
          checkPathAndQuery(params, query);
          if (rule.level === "admin") throw new AppError("forbidden", "this endpoint needs the admin token; mailbox API keys are refused");
          if (principal.runtime) runtime = runtimeAccess(decision.runtime ?? null, request.method, route);
          if (rule.level === "mailbox") {
            const target = await rule.mailboxOf(params as Record<string, string | undefined>, deps.owners);
            // No owner: the resource does not exist, and the handler answers 404.
            if (target !== undefined && target.toLowerCase() !== principal.mailboxId) throw new AppError("forbidden", "this API key is not valid for that mailbox");
          }
        }
      }
      if (principal?.kind !== "key") checkPathAndQuery(params, query);
      if ((body as unknown) instanceof BodyRefusal) throw (body as unknown as BodyRefusal).error;
      // The body schema is checked here rather than left to Elysia, whose refusal of a large body
      // costs seconds (src/http/validation.ts); Elysia's own check then only sees valid bodies.
      // A large body was checked already in the JSON worker that parsed it.
      if (!deps.json.checked(body)) deps.bodyOf(`${request.method} ${route}`)?.check?.(body);

      const detached = deps.json.texts(body);
      const texts = detached ? Object.fromEntries(Object.entries(detached).map(([field, t]) => [field, t.bytes])) : null;
      let idempotency: { key: string; fingerprint: string } | null = null;
      if (MUTATING.has(request.method)) {
        const key = readIdempotencyKey(headers[IDEMPOTENCY_HEADER]);
        if (key !== null) {
          const url = request.url;
          const query = url.indexOf("?");
          idempotency = { key, fingerprint: fingerprint(request.method, query < 0 ? path : path + url.slice(query), body, detached) };
        }
      }
      return { principal, idempotency, runtime, texts };
    })
    .onError({ as: "global" }, async ({ request, code, error, set, path }) => {
      const s = stateOf(request);
      const rendered = renderError(error, code, { method: request.method, path, requestId: s.id, log: deps.log });
      set.status = rendered.status;
      for (const [k, v] of Object.entries(rendered.headers)) set.headers[k] = v;
      set.headers["x-request-id"] = s.id;
      if (s.claim) {
        // A validation_error from the handler (domain rules such as slug syntax or reserved names) means
        // the request was refused before it changed anything, and a command dropped unrun (503) did
        // nothing either: release the key so the retry runs. Any other outcome of a started handler,
        // error included, is what a retry replays.
        // So is a command that says it applied nothing (`details.applied: false`, e.g. a send whose message could not be composed).
        const refused =
          (error instanceof AppError && (error.code === "validation_error" || error.details?.applied === false)) || notRun(error) !== undefined;
        const settle = refused ? deps.idempotency.release(s.claim) : deps.idempotency.complete(s.claim, rendered.status, JSON.stringify(rendered.body));
        await settle.catch((err) => deps.log.error({ err, requestId: s.id }, "could not record idempotent response"));
      }
      return rendered.body;
    });

  /**
   * Idempotency runs after validation, so it hangs on the routes that change something only:
   * each module wraps those in `.guard(mutation, …)`, and reads pay nothing for it.
   */
  const mutation: MutationHooks = {
    async beforeHandle(ctx) {
      const { request, principal, idempotency } = ctx as unknown as DerivedContext;
      if (!idempotency) return;
      const scope = principal?.kind === "key" ? `key:${principal.keyId}` : principal?.kind === "admin" ? "admin" : "public";
      const result = await deps.idempotency.claim(scope, idempotency.key, idempotency.fingerprint);
      const s = stateOf(request);
      if (result.kind === "claimed") {
        s.claim = result.claim;
        return;
      }
      return new Response(result.body, {
        status: result.status,
        headers: { "content-type": "application/json;charset=utf-8", "x-idempotent-replay": "true", "x-request-id": s.id },
      });
    },
    async afterHandle(ctx) {
      const { request, responseValue, set } = ctx as unknown as DerivedContext & { responseValue: unknown; set: { status?: number | string } };
      const claim = state.get(request)?.claim;
      if (!claim) return;
      const status = typeof set.status === "number" ? set.status : 200;
      // An answer built as a Response (src/http/spliced-json.ts) is stored as the bytes it sends:
      // megabytes of body are never decoded to a string on the event loop.
      const body = responseValue instanceof Response ? (splicedParts(responseValue) ?? (await responseValue.clone().bytes())) : JSON.stringify(responseValue ?? null);
      await deps.idempotency.complete(claim, responseValue instanceof Response ? responseValue.status : status, body);
    },
  };
  return { plugin, mutation };
}

/**
 * Path parameters and query values every route may hand to the database or a log: a malformed
 * percent-encoding (Elysia decodes such a parameter to null) and NUL, which PostgreSQL text
 * cannot hold, are refused here for every route, before anything looks the value up.
 */
function checkPathAndQuery(params: Record<string, unknown> | undefined, query: Record<string, unknown> | undefined): void {
  const fields: { path: string; message: string }[] = [];
  for (const [name, value] of Object.entries(params ?? {})) {
    if (typeof value !== "string") fields.push({ path: `params.${name}`, message: "is not valid percent-encoded UTF-8" });
    else if (!storable(value)) fields.push({ path: `params.${name}`, message: "must not contain NUL (%00)" });
  }
  for (const [name, value] of Object.entries(query ?? {})) {
    const key = storable(name) ? name : printable(name);
    if (key !== name || (Array.isArray(value) ? value : [value]).some((v) => typeof v === "string" && !storable(v))) fields.push({ path: `query.${key}`, message: "must not contain NUL (%00)" });
  }
  if (fields.length > 0) throw validationError(`${fields[0]!.path}: ${fields[0]!.message}`, fields);
}

/** An agent runtime's key: its binding must be enabled and its tier must allow the route. */
function runtimeAccess(access: RuntimeAccess | null, method: string, route: string): RuntimeAccess {
  if (!access) throw new AppError("forbidden", "this agent-runtime key's binding is disabled or removed");
  const needs = capabilityFor(method, route);
  if (!TIER_CAPABILITIES[access.tier]?.includes(needs)) {
    throw new AppError("forbidden", `permission tier ${access.tier} does not allow this (${needs} is needed)`, { permission_tier: access.tier, needs });
  }
  return access;
}
