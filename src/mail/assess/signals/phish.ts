/**
 * Phishing shapes that need no upstream verdict: a brand claimed by someone else, a phone
 * number to call about a charge, words broken with invisible or combining characters, a
 * consumer mailbox posing as a company department, a lure attachment, a link to a free
 * hosting platform. Each reads normalised, capped text (context.ts) with bounded patterns.
 */
import { BRANDS, brandSends, brandsNamedIn, claimedBrands, isFreemail, type Brand } from "../brands.ts";
import { orgDomain } from "../domains.ts";
import type { AssessContext } from "../model.ts";
import { effectiveExtension } from "./attachments.ts";
import { cutAtWord, testGated, testGatedWithin } from "../word-gate.ts";

/**
 * The head of the readable text the lure rules read: lures sit at the top, footers name brands
 * in passing. Cut where no word is split, so that the allText's word index stands for the
 * head's (testGatedWithin).
 */
const LURE_CHARS = 4096;
const lureHead = (ctx: AssessContext) => cutAtWord(ctx.allText, LURE_CHARS);
const lureText = (ctx: AssessContext) => `${ctx.subject}\n${lureHead(ctx)}`;

/**
 * testGated of the lure text (the subject, a line break, the head) without an index of its own:
 * the subject apart, the head with the allText's index. The same answer, as the topic pattern
 * matches no line break and looks across none.
 */
const lureTopic = (ctx: AssessContext) => testGated(ACCOUNT_TOPIC, ctx.subject) || testGatedWithin(ACCOUNT_TOPIC, lureHead(ctx), ctx.allText, 0);

// What a brand lure is about: the account, an order or a payment.
const ACCOUNT_TOPIC = /\b(?:account|password|sign-?in|log-?in|verify|verification|suspend(?:ed)?|locked|unusual activity|security alert|wallet|seed phrase|recovery phrase|order|invoice|receipt|payment|billing|declined|subscription|renew(?:al|ed)?|refund|membership|charged?|transaction|delivery|parcel|package|shipment|customs)\b/;

/**
 * A brand named in the display name, or in the subject or at the top of the body of a one-off
 * mail (not a list), about an account, order or payment, from a sender the brand does not
 * mail from.
 */
export function brandImpersonation(ctx: AssessContext): boolean {
  const domain = ctx.from?.domain;
  if (!domain) return false;
  if (!lureTopic(ctx)) return false;
  const text = lureText(ctx);
  const listMail = ctx.header("list-unsubscribe").length > 0 || ctx.header("list-id").length > 0;
  // Mail names brands in passing ("I ordered a Google Pixel"); a lure addresses the reader's
  // own account or order with the brand ("your Amazon order") and gives a way to act on it:
  // a link, a phone number or an attachment. Lists only by display name.
  const actOn = ctx.links.some((l) => l.host) || ctx.attachments.length > 0 || PHONE.test(text);
  const claimed = [...claimedBrands(ctx.from?.name ?? ""), ...(listMail || !actOn ? [] : possessedBrands(text))];
  return claimed.some((b) => !brandSends(b, domain));
}

const PHRASES = new Map(BRANDS.flatMap((b) => b.display.map((p) => [p, b] as const)));
const YOUR_BRAND = new RegExp(
  String.raw`\byour (${[...PHRASES.keys()].sort((a, b) => b.length - a.length).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?:'s)? (?:[a-z0-9#-]{1,20} ){0,2}(?:account|id|order|purchase|invoice|receipt|payment|subscription|membership|wallet|password|delivery|parcel|package|shipment|plan|renewal|refund|billing)\b`,
  "g",
);

/** Brands the text presents as the reader's own account, order or payment ("your Netflix account"). */
function possessedBrands(normalized: string): Brand[] {
  const out: Brand[] = [];
  for (const m of normalized.matchAll(YOUR_BRAND)) {
    const b = PHRASES.get(m[1]!);
    if (b && !out.includes(b)) out.push(b);
    if (out.length >= 4) break;
  }
  return out;
}

// A phone number as lures print them: toll-free or international, digits in groups.
const PHONE = /(?:\+?\d{1,3}[\s.-]?)?(?:\(\d{3}\)|\d{3})[\s.-]\d{3}[\s.-]\d{4}\b|\+\d{1,3}[\s.-]\d{2,4}[\s.-]\d{3,4}[\s.-]\d{3,4}\b/;
const CALL = /\b(?:call|dial|phone|contact|reach|helpline|toll[- ]?free|customer (?:care|support|service)|billing (?:department|team|support))\b/;
// A charge the reader did not make, to be undone over the phone.
// A refund already made ("we processed your refund") is not one: the lure offers to make one.
const DISPUTE = /\b(?:(?:did ?n[o']t|do not|not|never) (?:authori[sz]ed?|make|made|place|placed|request|requested|recogni[sz]e|initiate|order|ordered)|unauthori[sz]ed|to cancel|cancel (?:this|the|your|my) (?:order|subscription|renewal|transaction|payment|charge|purchase|plan)|cancellation (?:desk|department|line|team)|(?:to|for a|get a|request a|claim (?:a|your)|receive a|issue a) refund|dispute|reverse (?:the|this) (?:charge|transaction))\b/;
const CHARGE = /\b(?:order|invoice|receipt|renew(?:al|ed)?|subscription|charged?|debited|transaction|purchase|payment|membership)\b/;

/** A phone number to call to cancel or dispute an order, renewal or charge: the callback scam. */
export function callbackScam(ctx: AssessContext): boolean {
  const text = cutAtWord(ctx.allText, CALLBACK_CHARS);
  return PHONE.test(text) && [CALL, DISPUTE, CHARGE].every((re) => testGatedWithin(re, text, ctx.allText, 0));
}
/** What the callback rule reads: the head of the allText, cut where no word is split (its index stands for the head's). */
const CALLBACK_CHARS = 16 * 1024;

// Invisible format characters and combining marks that survive NFC, between two letters:
// they break a word for a filter while the reader sees it whole ("Am\u034fazon"). Zero-width
// spaces and joiners are hidden_text's (signals/hidden.ts).
const BROKEN_WORD = /\p{L}[\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e\u2061-\u2064\ufe00-\ufe0f\u0300-\u036f\u1ab0-\u1aff\u20d0-\u20ff]+\p{L}/gu;
const MIN_BROKEN_WORDS = 3;

/** Words broken up with invisible or combining characters, in the subject, the display name or the body. */
export function obfuscatedText(ctx: AssessContext): boolean {
  const raws = [ctx.mail?.subject ?? "", ctx.from?.name ?? "", (ctx.mail?.text ?? "").slice(0, 64 * 1024), (ctx.html?.visibleText ?? "").slice(0, 64 * 1024)];
  let n = 0;
  for (const raw of raws) {
    // Latin letters only: combining marks and joiners are ordinary spelling in many scripts.
    for (const m of raw.normalize("NFC").matchAll(BROKEN_WORD)) {
      if (/^[a-z]/i.test(m[0]) && /[a-z]$/i.test(m[0]) && ++n >= MIN_BROKEN_WORDS) return true;
    }
  }
  return false;
}

// A display name that speaks for a company department rather than a person.
const DEPARTMENT = /\b(?:billing|invoic(?:e|ing)|accounts? (?:payable|receivable|team|department)|payments?|support|help ?desk|service desk|customer (?:care|service|support)|security (?:team|department|center|centre)|it (?:team|department|support)|administrator|admin team|webmaster|renewals?|subscriptions?|order (?:team|department)|account (?:team|services))\b/;

/** A consumer mailbox (gmail.com, outlook.com, …) whose display name claims a brand or a company department. */
export function freemailBrandSender(ctx: AssessContext): boolean {
  const from = ctx.from;
  if (!from?.domain || !isFreemail(from.domain)) return false;
  return claimedBrands(from.name).length > 0 || DEPARTMENT.test(from.name) || brandsNamedIn(ctx.subject).length > 0;
}

const DOCUMENT_EXT = new Set(["pdf", "doc", "docx", "xls", "xlsx", "rtf", "odt", "zip", "rar", "7z", "img", "iso"]);
const MARKUP_EXT = new Set(["htm", "html", "shtml", "xhtml", "svg", "mht", "mhtml"]);
const LURE_NAME = /invoice|payment|remittance|receipt|statement|firmware|upgrade|update|voice ?mail|vm[_-]|fax|scan|purchase order|\bpo[_\s-]?\d|shipping|delivery|dhl|fedex|ups|wire|swift|salary|payroll|bonus|contract|quotation|quote|order/i;
const URGENT = /\b(?:urgent(?:ly)?|immediately|right away|today|within (?:24|48|72) hours|final (?:notice|reminder|warning)|overdue|past due|action required|required action|expires? (?:today|soon|tonight)|as soon as possible|asap|avoid (?:suspension|interruption|termination|service disruption|losing))\b/;

/**
 * An attachment that carries the lure: a web page or SVG (a login form that opens from disk),
 * or a document named as an invoice, payment, firmware update or voicemail in a mail that
 * presses for it urgently.
 */
export function lureAttachment(ctx: AssessContext): boolean {
  if (ctx.attachments.length === 0) return false;
  const urgent = URGENT.test(lureText(ctx));
  return ctx.attachments.some((a) => {
    const name = a.filename ?? "";
    const ext = effectiveExtension(name);
    if (MARKUP_EXT.has(ext) || a.contentType === "text/html" || a.contentType === "image/svg+xml") return true;
    return urgent && DOCUMENT_EXT.has(ext) && (LURE_NAME.test(name) || LURE_NAME.test(ctx.subject));
  });
}

// Platforms anyone can put a page on in minutes: where credential lures are hosted.
const FREE_HOSTS = new Set([
  "firebaseapp.com", "web.app", "glitch.me", "ipfs.io", "dweb.link", "r2.dev", "pages.dev", "workers.dev", "weebly.com", "wixsite.com",
  "webflow.io", "godaddysites.com", "000webhostapp.com", "netlify.app", "vercel.app", "herokuapp.com", "repl.co", "replit.app",
  "azurewebsites.net", "surge.sh", "ngrok.io", "ngrok-free.app", "trycloudflare.com", "duckdns.org", "square.site", "mystrikingly.com",
  "yolasite.com", "carrd.co", "jotform.com", "form.jotform.com", "typeform.com", "forms.gle", "formstack.com", "sharepoint-online.net",
  "blogspot.com", "sites.google.com", "storage.googleapis.com", "firebasestorage.googleapis.com", "s3.amazonaws.com", "blob.core.windows.net",
  "translate.goog", "wcomhost.com", "framer.website", "framer.app", "notion.site", "canva.site", "my.canva.site", "tiiny.site",
]);

/** A link to a page on a free hosting or form platform (firebaseapp.com, ipfs.io, wixsite.com, …). */
export function freeHostingLink(ctx: AssessContext): boolean {
  return ctx.links.some((l) => {
    if (!l.host) return false;
    if (FREE_HOSTS.has(orgDomain(l.host))) return true;
    // Private suffixes make each site its own organisation (x.web.app): look at every parent name.
    const labels = l.host.split(".");
    for (let i = 1; i < labels.length - 1 && i <= 8; i++) if (FREE_HOSTS.has(labels.slice(i).join("."))) return true;
    return false;
  });
}

/** Every pattern of this file, for bench/assess-budget.ts. */
export const PHISH_PATTERNS: RegExp[] = [ACCOUNT_TOPIC, YOUR_BRAND, PHONE, CALL, DISPUTE, CHARGE, BROKEN_WORD, DEPARTMENT, LURE_NAME, URGENT];
