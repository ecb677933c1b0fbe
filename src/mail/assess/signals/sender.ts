/** Who the message claims to be from, against where it actually comes from. */
import { brandSends, claimedBrands, imitatedBrand } from "../brands.ts";
import { hasPunycode, sameOrg } from "../domains.ts";
import type { AssessContext, FinalContext } from "../model.ts";

// Names are at most 512 chars here (context.ts), so these bounded patterns stay cheap.
const ADDRESS_IN_NAME = /[a-z0-9._%+-]{1,64}@((?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24})/g;
const DOMAIN_IN_NAME = /(?:^|[\s(<[])(?:https?:\/\/)?((?:[a-z0-9-]{1,63}\.){1,8}(?:com|net|org|io|co|us|uk|de|fr|info|biz|app|ai|gov|edu|me|online|site|support|services?|security|account|bank))(?=$|[\s)>\]/:,;.!?])/;

/**
 * The display name shows an address or a domain of another organisation, or claims a
 * well-known brand while the address belongs to someone else ("PayPal <x@evil.example>").
 * A brand mailing through its email service provider (From on the ESP's domain) is itself
 * when a DKIM signature of the brand's own domain verifies; a consumer mailbox (outlook.com,
 * gmail.com) never speaks for a brand. A final rule, as only auth knows whether DKIM passed.
 */
export function displayNameSpoof(ctx: FinalContext): boolean {
  const from = ctx.from;
  if (!from?.name || !from.domain) return false;
  for (const m of from.name.matchAll(ADDRESS_IN_NAME)) {
    if (!sameOrg(m[1]!, from.domain)) return true;
  }
  const withoutAddresses = from.name.replace(ADDRESS_IN_NAME, " ");
  const shown = DOMAIN_IN_NAME.exec(withoutAddresses);
  if (shown && !sameOrg(shown[1]!, from.domain)) return true;
  const signedBy = (brand: Parameters<typeof brandSends>[0]) => ctx.auth.dkim === "pass" && (from.dkimDomains ?? []).some((d) => brandSends(brand, d));
  return claimedBrands(from.name).some((brand) => !brandSends(brand, from.domain) && !signedBy(brand));
}

/** Replies would go to another organisation than the author's. */
export function replyToMismatch(ctx: AssessContext): boolean {
  const fromDomain = ctx.from?.domain;
  if (!fromDomain) return false;
  return ctx.replyToDomains.some((d) => !sameOrg(d, fromDomain));
}

/**
 * From claims our own mail domain, yet the message came in from outside (over SMTP) with no
 * passing DKIM or DMARC: our own mailboxes never reach us that way.
 */
export function ownDomainSpoof(ctx: FinalContext): boolean {
  const d = ctx.from?.domain;
  if (!d || !ctx.mailDomain || ctx.envelope.remoteAddress === null) return false;
  const ours = d === ctx.mailDomain || d.endsWith(`.${ctx.mailDomain}`);
  return ours && ctx.auth.dkim !== "pass" && ctx.auth.dmarc !== "pass";
}

/** No From, several From fields, or one without a readable address. */
export function invalidFrom(ctx: AssessContext): boolean {
  if (!ctx.mail) return false;
  return ctx.fromFields !== 1 || !ctx.from?.domain;
}

const senderHosts = (ctx: AssessContext): string[] => [ctx.from?.domain ?? "", ...ctx.replyToDomains].filter(Boolean);
const linkHosts = (ctx: AssessContext): string[] => [...new Set(ctx.links.map((l) => l.host).filter(Boolean))];

/** An internationalised (xn--) domain in the sender, Reply-To or a link. */
export const punycodeDomain = (ctx: AssessContext): boolean => [...senderHosts(ctx), ...linkHosts(ctx)].some(hasPunycode);

/** A sender or link domain made to read like a well-known brand (see brands.ts). */
export const lookalikeDomain = (ctx: AssessContext): boolean =>
  [...senderHosts(ctx), ...linkHosts(ctx).slice(0, 100)].some((h) => imitatedBrand(h) !== null);
