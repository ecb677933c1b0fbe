/** Links: where they claim to go, where they go, and how. */
import { BRANDS, brandOwns } from "../brands.ts";
import { asciiHost, isIpHost, orgDomain, sameOrg } from "../domains.ts";

/** Both hosts are domains of one well-known brand (paypal.com and paypal-communication.com). */
const sameBrand = (a: string, b: string) => BRANDS.some((brand) => brandOwns(brand, a) && brandOwns(brand, b));
import type { AssessContext } from "../model.ts";

// Anchor text is capped at 256 chars (html.ts), which bounds these patterns.
const SHOWN_HOST = /(?:^|[\s(<[:"'])(?:(?:https?|ftp):\/\/)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?=$|[\s/:?#)>\].,;!'"])/i;
// Text like "invoice.pdf" is a file name, not a host.
const FILE_SUFFIX = /\.(?:pdf|docx?|xlsx?|pptx?|zip|rar|7z|png|jpe?g|gif|svg|webp|txt|csv|html?|php|aspx?|jsp|exe|msi|js|json|xml|mp[34]|mov|avi|wav|eml|ics|ics|htm)$/i;

/** The host an anchor's text displays, or "" when the text does not look like a URL or domain. */
export function shownHost(text: string): string {
  const m = SHOWN_HOST.exec(text.trim());
  if (!m || FILE_SUFFIX.test(m[1]!)) return "";
  return asciiHost(m[1]!);
}

/**
 * Anchor text shows one organisation's URL/domain while the href goes to another. A link
 * through the sender's click tracking (ctx.trackingOrgs: list and ESP mail only) is how
 * newsletters count clicks, not deception.
 */
export const linkTextMismatch = (ctx: AssessContext): boolean =>
  ctx.links.some((l) => {
    if (l.text === null || !l.host || (l.scheme !== "http:" && l.scheme !== "https:")) return false;
    const shown = shownHost(l.text);
    return shown !== "" && !sameOrg(shown, l.host) && !sameBrand(shown, l.host) && !tracking(ctx, l.host);
  });

// Host names ESPs give a sender's own click-tracking domain ("click.e.brand-mail.example").
const TRACKING_HOST = /^(?:click|clicks|links?|track(?:ing)?|trk|email|e|go|r|url|redirect|l|t|mail|news|em|ct)\d{0,2}\./;

/** A link through click tracking of a list or ESP mail (see AssessContext.trackingOrgs). */
const tracking = (ctx: AssessContext, host: string) => ctx.trackingOrgs.size > 0 && (ctx.trackingOrgs.has(orgDomain(host)) || TRACKING_HOST.test(host));

/** A link to a bare IPv4/IPv6 address (obfuscated forms like http://3232235777 are normalised by the URL parser). */
export const ipUrl = (ctx: AssessContext): boolean => ctx.links.some((l) => l.host !== "" && isIpHost(l.host));

// Schemes that run code or open local resources when clicked (ms-msdt: was Follina).
const DANGEROUS = /^(?:javascript|vbscript|data|file|jar|search-ms|ms-[a-z0-9-]+):$/;

export const dangerousLinkScheme = (ctx: AssessContext): boolean => ctx.links.some((l) => l.text !== null && DANGEROUS.test(l.scheme));

const SHORTENERS = new Set([
  "bit.ly", "tinyurl.com", "t.co", "goo.gl", "ow.ly", "is.gd", "buff.ly", "rebrand.ly", "cutt.ly", "shorturl.at", "tiny.cc", "rb.gy",
  "s.id", "t.ly", "bl.ink", "soo.gd", "qrco.de", "v.gd", "shorte.st", "adf.ly", "tinu.be", "short.io", "urlz.fr", "x.co",
]);

/** A link through a URL shortener hides its destination from the reader and from us. */
export const urlShortener = (ctx: AssessContext): boolean => ctx.links.some((l) => SHORTENERS.has(l.host.replace(/^www\./, "")));

/** A form inside the message: credential harvesting without even leaving the inbox. */
export const htmlForm = (ctx: AssessContext): boolean => (ctx.html?.forms ?? 0) > 0;
