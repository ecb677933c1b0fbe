/** Header-only facts: machine-sent mail, lists, bounces, and the auto-reply loop guard. */
import type { AssessContext } from "../model.ts";

const firstToken = (v: string) => (v.split(";")[0] ?? "").trim().toLowerCase();

/** RFC 3834 Auto-Submitted other than "no", or the de-facto auto-responder markers. */
export const autoSubmitted = (ctx: AssessContext): boolean =>
  ctx.header("auto-submitted").some((v) => firstToken(v) !== "" && firstToken(v) !== "no") ||
  ctx.header("x-autoreply").length > 0 ||
  ctx.header("x-autorespond").length > 0;

const bulkPrecedence = (ctx: AssessContext) => ctx.header("precedence").some((v) => ["bulk", "list", "junk"].includes(firstToken(v)));

export const bulk = (ctx: AssessContext): boolean =>
  ctx.header("list-id").length > 0 || ctx.header("list-unsubscribe").length > 0 || bulkPrecedence(ctx);

export const hasListUnsubscribe = (ctx: AssessContext): boolean => ctx.header("list-unsubscribe").length > 0;

const DAEMON = /^(?:mailer-daemon|postmaster)$/i;
const localPart = (address: string) => address.slice(0, address.lastIndexOf("@")).trim();

/**
 * A null reverse-path. Over SMTP "MAIL FROM:<>" reaches us as a null mailFrom; HTTP and
 * internal delivery have no envelope at all (and no remote address), which is not a bounce.
 */
export const nullSender = (ctx: AssessContext): boolean => {
  const mf = ctx.envelope.mailFrom;
  if (mf === "" || mf === "<>") return true;
  return mf === null && ctx.envelope.remoteAddress !== null;
};

export const daemonSender = (ctx: AssessContext): boolean => {
  const candidates = [ctx.from?.address ?? "", ctx.envelope.mailFrom ?? ""];
  const rawFrom = ctx.header("from")[0] ?? "";
  const m = /([^\s<>"]+)@/.exec(rawFrom.slice(0, 512));
  if (m) candidates.push(`${m[1]}@x`);
  return candidates.some((a) => a.includes("@") && DAEMON.test(localPart(a)));
};

const deliveryReport = (ctx: AssessContext): boolean =>
  ctx.header("content-type").some((v) => /^multipart\/report\b/i.test(v.trim()) && /report-type\s*=\s*"?(?:delivery-status|disposition-notification)/i.test(v));

/** Delivery status notifications and read receipts. */
export const bounce = (ctx: AssessContext): boolean => nullSender(ctx) || daemonSender(ctx) || deliveryReport(ctx);

/**
 * Never answer automatically: RFC 3834 §2 (Auto-Submitted, list and bulk mail), Exchange's
 * X-Auto-Response-Suppress, and anything a daemon or a null sender sent (answering a bounce
 * is how mail loops start).
 */
export const autoReplyBlocked = (ctx: AssessContext): boolean =>
  autoSubmitted(ctx) ||
  bulk(ctx) ||
  ctx.header("x-auto-response-suppress").some((v) => v.trim() !== "" && v.trim().toLowerCase() !== "none") ||
  bounce(ctx);

const NO_REPLY = /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|donotreply|notifications?|notify|alerts?|automated|mailer|bounces?|system|daemon|info-noreply)(?:[-_.+].*)?$/i;

/** Senders that say, in their address, that nobody reads replies. */
export const noReplySender = (ctx: AssessContext): boolean => {
  const address = ctx.from?.address ?? "";
  return address.includes("@") && NO_REPLY.test(localPart(address));
};
