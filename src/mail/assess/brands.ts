/**
 * The brands phishing imitates most, as data: what a display name says when it claims to be
 * the brand, and the organisational domains the brand really mails from. A display name that
 * claims a brand is fine from any of `domains`, or from any domain whose registrable label
 * is the brand's `label` (paypal.de, amazon.co.jp).
 */
import { orgDomain, orgLabel, toUnicode } from "./domains.ts";

export interface Brand {
  label: string;
  /** Phrases (normalised: lower case, single spaces) that claim the brand in a display name. */
  display: string[];
  domains: string[];
  /** One-edit typos count as imitation; off for names one letter from a common word (binance/finance). */
  fuzzy?: boolean;
}

export const BRANDS: Brand[] = [
  { label: "paypal", display: ["paypal"], domains: ["paypal.com", "paypal.me", "xoom.com", "paypal-communication.com", "paypalobjects.com"] },
  { label: "apple", display: ["apple support", "apple id", "apple store", "icloud", "itunes", "app store", "apple pay"], domains: ["apple.com", "icloud.com", "me.com", "mac.com", "itunes.com"] },
  { label: "microsoft", display: ["microsoft", "office 365", "office365", "microsoft 365", "outlook team", "onedrive", "sharepoint", "windows defender", "xbox"], domains: ["microsoft.com", "office.com", "office365.com", "microsoftonline.com", "outlook.com", "live.com", "hotmail.com", "sharepoint.com", "onedrive.com", "xbox.com", "microsoftstore.com"] },
  { label: "google", display: ["google", "gmail", "youtube"], domains: ["google.com", "gmail.com", "googlemail.com", "youtube.com", "withgoogle.com"] },
  { label: "amazon", display: ["amazon", "aws"], domains: ["amazon.com", "amazonaws.com", "amazonses.com", "a2z.com", "aws.com"] },
  { label: "netflix", display: ["netflix"], domains: ["netflix.com"] },
  { label: "facebook", display: ["facebook", "meta for business", "instagram", "whatsapp"], domains: ["facebook.com", "facebookmail.com", "meta.com", "instagram.com", "mail.instagram.com", "whatsapp.com"] },
  { label: "linkedin", display: ["linkedin"], domains: ["linkedin.com"] },
  { label: "dropbox", display: ["dropbox"], domains: ["dropbox.com", "dropboxmail.com"] },
  { label: "docusign", display: ["docusign"], domains: ["docusign.com", "docusign.net"] },
  { label: "adobe", display: ["adobe sign", "adobe acrobat", "adobe document cloud"], domains: ["adobe.com", "adobesign.com", "echosign.com"] },
  { label: "chase", display: ["chase bank", "chase online", "jpmorgan chase", "chase alerts"], domains: ["chase.com", "jpmorgan.com", "jpmchase.com"] },
  { label: "wellsfargo", display: ["wells fargo"], domains: ["wellsfargo.com", "wf.com"] },
  { label: "bankofamerica", display: ["bank of america"], domains: ["bankofamerica.com", "bofa.com", "ealerts.bankofamerica.com"] },
  { label: "citibank", display: ["citibank"], domains: ["citi.com", "citibank.com"] },
  { label: "hsbc", display: ["hsbc"], domains: ["hsbc.com", "hsbc.co.uk"] },
  { label: "barclays", display: ["barclays"], domains: ["barclays.com", "barclays.co.uk", "barclaycard.co.uk"] },
  { label: "americanexpress", display: ["american express", "amex"], domains: ["americanexpress.com", "aexp.com", "amex.com"] },
  { label: "dhl", display: ["dhl express", "dhl parcel", "dhl delivery", "dhl"], domains: ["dhl.com", "dhl.de"] },
  { label: "fedex", display: ["fedex"], domains: ["fedex.com"] },
  { label: "usps", display: ["usps", "postal service"], domains: ["usps.com", "usps.gov"] },
  { label: "irs", display: ["internal revenue service", "irs"], domains: ["irs.gov"] },
  { label: "coinbase", display: ["coinbase"], domains: ["coinbase.com"] },
  { label: "binance", display: ["binance"], domains: ["binance.com"], fuzzy: false },
  { label: "stripe", display: ["stripe"], domains: ["stripe.com"], fuzzy: false },
  { label: "github", display: ["github"], domains: ["github.com", "githubapp.com"] },
  { label: "openai", display: ["openai", "chatgpt"], domains: ["openai.com", "chatgpt.com"] },
  { label: "anthropic", display: ["anthropic"], domains: ["anthropic.com", "claude.ai", "claude.com"] },
  { label: "metamask", display: ["metamask"], domains: ["metamask.io", "consensys.io", "consensys.net"] },
  { label: "ledger", display: ["ledger live", "ledger wallet"], domains: ["ledger.com"], fuzzy: false },
  { label: "trustwallet", display: ["trust wallet"], domains: ["trustwallet.com"] },
  { label: "norton", display: ["norton", "norton 360", "norton lifelock", "lifelock"], domains: ["norton.com", "nortonlifelock.com", "gen.com", "lifelock.com"] },
  { label: "mcafee", display: ["mcafee"], domains: ["mcafee.com"] },
  { label: "geeksquad", display: ["geek squad", "geeksquad"], domains: ["geeksquad.com", "bestbuy.com"] },
  { label: "bestbuy", display: ["best buy"], domains: ["bestbuy.com"] },
  { label: "walmart", display: ["walmart"], domains: ["walmart.com"] },
  { label: "ups", display: ["ups"], domains: ["ups.com"], fuzzy: false },
  { label: "ebay", display: ["ebay"], domains: ["ebay.com"], fuzzy: false },
  { label: "spotify", display: ["spotify"], domains: ["spotify.com"] },
  { label: "sparkasse", display: ["sparkasse"], domains: ["sparkasse.de", "s-finanzgruppe.de"] },
  { label: "santander", display: ["santander", "banco santander"], domains: ["santander.com", "santander.es", "santander.co.uk", "santander.de"] },
  { label: "laposte", display: ["la poste", "colissimo"], domains: ["laposte.fr", "laposte.net", "colissimo.fr"] },
];

/**
 * Consumer mailbox domains: anyone can have an address there, so a display name claiming a
 * brand proves nothing by sending from one, even when the brand runs it (outlook.com, gmail.com).
 */
export const FREEMAIL = new Set([
  "gmail.com", "googlemail.com", "outlook.com", "hotmail.com", "live.com", "msn.com", "yahoo.com", "ymail.com", "aol.com",
  "icloud.com", "me.com", "mac.com", "proton.me", "protonmail.com", "gmx.com", "gmx.net", "gmx.de", "web.de", "mail.com",
  "zoho.com", "zohomail.com", "yandex.com", "yandex.ru", "mail.ru", "inbox.ru", "list.ru", "bk.ru", "qq.com", "163.com",
  "126.com", "sina.com", "naver.com", "hanmail.net", "libero.it", "laposte.net", "orange.fr", "free.fr", "t-online.de",
  "seznam.cz", "wp.pl", "o2.pl", "interia.pl", "onet.pl", "rediffmail.com", "tutanota.com", "tuta.io", "fastmail.com",
  "hushmail.com", "mail.ee", "rambler.ru", "btinternet.com", "comcast.net", "verizon.net", "att.net", "sbcglobal.net",
]);

export const isFreemail = (host: string): boolean => FREEMAIL.has(orgDomain(host)) || FREEMAIL.has(asciiHostOf(host));
const asciiHostOf = (h: string) => h.trim().toLowerCase().replace(/\.$/, "");

/** Brands named anywhere in a normalised text, by their display phrases, word-bounded. */
export function brandsNamedIn(normalized: string): Brand[] {
  const padded = ` ${normalized.replace(/[^a-z0-9]+/g, " ")} `;
  return BRANDS.filter((b) => b.display.some((p) => p.length >= 4 && padded.includes(` ${p} `)));
}

/** True when `host` is one of the brand's own domains or carries its label. */
export function brandOwns(brand: Brand, host: string): boolean {
  const org = orgDomain(host);
  return orgLabel(host) === brand.label || brand.domains.some((d) => orgDomain(d) === org);
}

/** The brand may send as itself from `host`: one of its domains, and not a consumer mailbox anyone can open. */
export const brandSends = (brand: Brand, host: string): boolean => !isFreemail(host) && brandOwns(brand, host);

/** Brands a display name claims (word-bounded phrase match on the normalised name). */
export function claimedBrands(normalizedName: string): Brand[] {
  const padded = ` ${normalizedName.replace(/[^a-z0-9]+/g, " ")} `;
  return BRANDS.filter((b) => b.display.some((p) => padded.includes(` ${p} `)));
}

// Letters that read as Latin letters: Cyrillic and Greek homoglyphs, digits and pairs.
const HOMOGLYPHS: Record<string, string> = {
  а: "a", е: "e", о: "o", р: "p", с: "c", у: "y", х: "x", і: "i", ј: "j", ԁ: "d", ѕ: "s", һ: "h", ԛ: "q", ԝ: "w", ɡ: "g", ո: "n", ν: "v", ο: "o", α: "a", ι: "i", κ: "k", ρ: "p", τ: "t", υ: "u",
  "0": "o", "1": "l", "3": "e", "5": "s", "4": "a", "7": "t", "8": "b", "!": "i", "|": "l",
};

export function skeleton(label: string): string {
  let s = "";
  for (const ch of label.normalize("NFKD").replace(/[\u0300-\u036f]/g, "")) s += HOMOGLYPHS[ch] ?? ch;
  return s.replace(/rn/g, "m").replace(/vv/g, "w").replace(/cl/g, "d").replace(/-/g, "");
}

// Words that turn a brand name inside a hyphenated domain into a credential-phishing host.
const LURE_WORDS = new Set(["login", "signin", "secure", "security", "account", "accounts", "verify", "verification", "support", "update", "billing", "service", "services", "auth", "wallet", "pay", "payment", "help", "alert", "alerts", "id"]);

/**
 * The brand a host imitates, or null: a registrable label that is not the brand's but reads
 * as it (homoglyphs, digits for letters, "rn" for "m"), is one edit away from a brand of six
 * or more letters, or pairs the brand with a lure word ("paypal-secure-login.com").
 */
export function imitatedBrand(host: string): Brand | null {
  const label = toUnicode(orgLabel(host));
  if (!label || label.length > 63) return null;
  const skel = skeleton(label);
  for (const brand of BRANDS) {
    if (brandOwns(brand, host) || label === brand.label) continue;
    if (skel === brand.label) return brand;
    if (brand.fuzzy !== false && brand.label.length >= 6 && editDistanceAtMostOne(label, brand.label)) return brand;
    const parts = label.split("-");
    if (parts.length > 1 && parts.includes(brand.label) && parts.some((p) => LURE_WORDS.has(p))) return brand;
    // A part that reads as the brand without being it: "paypa1-support".
    if (parts.length > 1 && parts.length <= 6 && parts.some((p) => p !== brand.label && skeleton(p) === brand.label)) return brand;
  }
  return null;
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (a.length < b.length) j++;
    else (i++, j++);
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}
