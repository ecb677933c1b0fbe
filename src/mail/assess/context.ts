/**
 * Builds the one read-only view every rule matches against. All caps are applied here, so
 * a rule can never be handed more than the budget, whatever the message holds.
 */
import type { Disposition } from "../../../db/schema/knowledge.ts";
import type { AuthResults, Envelope, HeaderField, ParsedAttachment, ParsedMail } from "../types.ts";
import { asciiHost, domainOf, orgDomain } from "./domains.ts";
import { scanHtml, type HtmlScan } from "./html.ts";
import type { AssessContext, Link, Sender } from "./model.ts";
import { cap, MAX_ATTACHMENTS, MAX_ATTACHMENT_TEXT, MAX_HEADER_CHARS, MAX_LINKS, normalizeForMatch } from "./text.ts";

const MAX_HEADERS = 1000;
const MAX_TEXT_ATTACHMENTS = 10;
const URL_IN_TEXT = /\b(?:https?|ftp):\/\/[^\s<>"'`{}|\\^[\]]{1,2048}/gi;
const TEXT_ATTACHMENT = /\.(?:txt|md|markdown|csv|tsv|json|xml|html?|eml|log|ya?ml|ics|vcf)$/i;

export interface AssessInput {
  mail: ParsedMail | null;
  headers: HeaderField[];
  envelope: Envelope;
  /** The sender profile's disposition; neutral when there is none. */
  disposition?: Disposition;
}

export function buildContext(input: AssessInput, auth: AuthResults, mailDomain: string): AssessContext {
  const { mail, envelope } = input;
  const index = indexHeaders(input.headers.length ? input.headers : (mail?.headers ?? []));
  const header = (name: string) => index.get(name.toLowerCase()) ?? [];

  const html = mail?.html ? scanHtml(mail.html) : null;
  const text = cap(mail?.text);
  const attachments = (mail?.attachments ?? []).slice(0, MAX_ATTACHMENTS);
  const subjectRaw = cap(mail?.subject ?? header("subject")[0] ?? "", MAX_HEADER_CHARS);
  const from = sender(mail, header("from"), header("dkim-signature"));
  const visibleBody = html && /\S/.test(html.visibleText) ? html.visibleText : text;

  const allText = normalizeForMatch(
    [subjectRaw, from?.name ?? "", text, html?.visibleText ?? "", html?.hiddenText ?? "", html?.sideText ?? "", ...attachmentTexts(attachments)].join("\n"),
  );

  return {
    mailDomain: asciiHost(mailDomain),
    mail,
    envelope,
    auth,
    header,
    from,
    fromFields: header("from").length,
    replyToDomains: replyToDomains(mail, header("reply-to")),
    subject: normalizeForMatch(subjectRaw),
    allText,
    visibleBody,
    html,
    links: collectLinks(html, [text, html?.visibleText ?? ""]),
    attachments,
    trackingOrgs: trackingOrgs(input.headers.length ? input.headers : (mail?.headers ?? []), header, from),
    disposition: input.disposition ?? "neutral",
  };
}

function indexHeaders(headers: HeaderField[]): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const h of headers.slice(0, MAX_HEADERS)) {
    const key = h.key.trim().toLowerCase();
    const list = index.get(key) ?? [];
    list.push(cap(h.value, MAX_HEADER_CHARS).trim());
    index.set(key, list);
  }
  return index;
}

// The parser drops an address it cannot check (an IDN domain, for one), so the domain is
// read back from the raw header: a sender hiding behind a Unicode domain must not vanish.
function sender(mail: ParsedMail | null, rawFrom: string[], dkim: string[]): Sender | null {
  const dkimDomains = [...new Set(dkim.slice(0, 10).map((v) => asciiHost(DKIM_DOMAIN.exec(v)?.[1] ?? "")).filter(Boolean))];
  const address = mail?.from?.address ?? "";
  const domain = address ? domainOf(address) : domainOf(rawFrom[0] ?? "");
  const name = normalizeForMatch(cap(mail?.from?.name ?? "", 512)).trim();
  if (!domain && !name) return null;
  return { address, name, domain, dkimDomains };
}

const DKIM_DOMAIN = /(?:^|;)\s*d\s*=\s*([a-z0-9.-]{1,253})/i;
const URL_HOST = /https?:\/\/([a-z0-9.-]{1,253})/gi;
// Headers only an email service provider or a list server writes (prefixes, lower case).
const ESP_HEADER_PREFIXES = ["list-", "feedback-id", "x-mailgun-", "x-ses-", "x-sg-", "x-sendgrid", "x-mc-", "x-mandrill-", "x-mailjet-", "x-mj-", "x-sib-", "x-sfmc-", "x-pm-", "x-hs-", "x-campaign", "x-mailchimp", "x-csa-complaints", "x-sparkpost", "x-msys-", "x-cm-", "x-klaviyo", "x-mailer-sid", "x-emarsys", "x-braze", "x-iterable", "x-customerio", "x-rpcampaign", "x-marketo", "x-mkto"];
// Click-tracking domains of the big email service providers (organisational domains).
const ESP_TRACKING = ["sendgrid.net", "mailgun.org", "mailgun.net", "list-manage.com", "mailchi.mp", "mcsv.net", "mandrillapp.com", "amazonses.com", "awstrack.me", "hubspotlinks.com", "hubspotemail.net", "hs-analytics.net", "klclick.com", "klclick1.com", "klclick2.com", "klclick3.com", "klaviyomail.com", "exacttarget.com", "rs6.net", "createsend.com", "cmail19.com", "cmail20.com", "mjt.lu", "sendibt2.com", "sendibt3.com", "sendibm1.com", "brevo.com", "mkto-ab.com", "pstmrk.it", "substack.com", "beehiiv.com", "convertkit-mail.com", "convertkit-mail2.com", "ck.page", "en25.com", "links.iterable.com", "customeriomail.com", "sparkpostmail.com", "spgo.io", "mlsend.com", "mailerlite.com", "acemlna.com", "acemlnb.com", "acemlnc.com", "gr8.com", "aweber.com", "dripemail2.com", "emltrk.com", "ct.sendgrid.net", "mailchimpapp.net", "salesforce.com", "click.pstmrk.it", "bnc.lt", "app.link", "urldefense.com", "safelinks.protection.outlook.com"];

/** See AssessContext.trackingOrgs: empty for a message without list or ESP headers. */
function trackingOrgs(headers: HeaderField[], header: (name: string) => string[], from: Sender | null): Set<string> {
  const esp = headers.slice(0, MAX_HEADERS).some((h) => {
    const k = h.key.trim().toLowerCase();
    return ESP_HEADER_PREFIXES.some((p) => k.startsWith(p));
  });
  if (!esp) return new Set();
  const orgs = new Set(ESP_TRACKING.map((d) => orgDomain(d)));
  for (const value of header("list-unsubscribe").slice(0, 4)) {
    URL_HOST.lastIndex = 0;
    for (const m of value.slice(0, 2048).matchAll(URL_HOST)) orgs.add(orgDomain(m[1]!));
    const mailto = /mailto:[^@>\s]{1,128}@([a-z0-9.-]{1,253})/i.exec(value);
    if (mailto) orgs.add(orgDomain(mailto[1]!));
  }
  if (from?.domain) orgs.add(orgDomain(from.domain));
  for (const d of from?.dkimDomains ?? []) orgs.add(orgDomain(d));
  orgs.delete("");
  return orgs;
}

function replyToDomains(mail: ParsedMail | null, raw: string[]): string[] {
  const parsed = (mail?.replyTo ?? []).slice(0, 50).map((a) => (a.address ? domainOf(a.address) : ""));
  if (parsed.length > 0 && parsed.every(Boolean)) return [...new Set(parsed)];
  const out = new Set<string>(parsed.filter(Boolean));
  for (const value of raw) {
    for (const part of value.split(",").slice(0, 50)) {
      const d = domainOf(part);
      if (d) out.add(d);
    }
  }
  return [...out];
}

function attachmentTexts(attachments: ParsedAttachment[]): string[] {
  const out: string[] = [];
  for (const a of attachments) {
    if (out.length >= MAX_TEXT_ATTACHMENTS) break;
    const isText = a.contentType.startsWith("text/") || a.contentType === "message/rfc822" || TEXT_ATTACHMENT.test(a.filename ?? "");
    if (!isText) continue;
    const body = new TextDecoder("utf-8", { fatal: false }).decode(a.content.subarray(0, MAX_ATTACHMENT_TEXT));
    if (a.contentType === "text/html" || /\.html?$/i.test(a.filename ?? "")) {
      const scan = scanHtml(body);
      out.push(scan.visibleText, scan.hiddenText, scan.sideText);
    } else out.push(body);
  }
  return out;
}

function collectLinks(html: HtmlScan | null, texts: string[]): Link[] {
  const links: Link[] = [];
  for (const a of html?.anchors ?? []) {
    if (links.length >= MAX_LINKS) return links;
    links.push(toLink(a.href, a.text));
  }
  const seen = new Set(links.map((l) => l.href));
  for (const t of texts) {
    URL_IN_TEXT.lastIndex = 0;
    for (const m of t.matchAll(URL_IN_TEXT)) {
      if (links.length >= MAX_LINKS) return links;
      if (seen.has(m[0])) continue;
      seen.add(m[0]);
      links.push(toLink(m[0], null));
    }
  }
  return links;
}

function toLink(href: string, text: string | null): Link {
  // Browsers drop tabs, newlines and controls anywhere in a URL ("java\nscript:").
  const cleaned = href.replace(/[\u0000-\u0020\u007f]+/g, "");
  try {
    const u = new URL(cleaned);
    return { href, scheme: u.protocol.toLowerCase(), host: asciiHost(u.hostname), text };
  } catch {
    const m = /^([a-z][a-z0-9+.-]{0,31}):/i.exec(cleaned);
    return { href, scheme: m ? `${m[1]!.toLowerCase()}:` : "", host: "", text };
  }
}
