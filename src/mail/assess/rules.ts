/**
 * The rule table: every signal Mailroom reports, what it means, how much it weighs. This
 * array is the documentation (rulesMarkdown() renders it) and the code (assess() runs it),
 * so the two cannot drift. Signal strings are API: rename one only with a changelog entry.
 */
import type { RiskLevel } from "../types.ts";
import type { AssessContext, FinalContext, FinalRule, Rule, Severity } from "./model.ts";
import { executableAttachment, macroAttachment } from "./signals/attachments.ts";
import { autoSubmitted, bounce, bulk } from "./signals/headers.ts";
import { brandImpersonation, callbackScam, freeHostingLink, freemailBrandSender, lureAttachment, obfuscatedText } from "./signals/phish.ts";
import { hiddenText } from "./signals/hidden.ts";
import { credentialRequest, exfiltrationRequest, promptInjection, urgentPaymentLanguage } from "./signals/language.ts";
import { dangerousLinkScheme, htmlForm, ipUrl, linkTextMismatch, urlShortener } from "./signals/links.ts";
import { displayNameSpoof, invalidFrom, lookalikeDomain, ownDomainSpoof, punycodeDomain, replyToMismatch } from "./signals/sender.ts";

/** Score at which the risk is at least medium / high. Any high-severity signal is high on its own. */
export const RISK_THRESHOLDS = { medium: 3, high: 7 } as const;

export const RULES: readonly Rule[] = [
  // high: one is enough
  { signal: "executable_attachment", severity: "high", weight: 10, matcher: executableAttachment,
    description: "An attachment that runs code: executable extension (exe, scr, js, vbs, bat, cmd, ps1, msi, jar, com, pif, hta, lnk, iso, …, also as the last of a double extension like invoice.pdf.exe), executable content type, PE/ELF/Mach-O bytes, a right-to-left override in the name, or such a file inside a zip." },
  { signal: "prompt_injection", severity: "high", weight: 10, matcher: promptInjection,
    description: "Text that addresses an AI model/assistant/agent or tells it to ignore previous instructions, reveal its system prompt, take on another role, or keep something from its user; anywhere: subject, body, hidden HTML, comments, alt text, text attachments, tag-character smuggling." },
  // medium
  { signal: "dmarc_fail", final: true, severity: "medium", weight: 4, matcher: (c) => c.auth.dmarc === "fail",
    description: "DMARC fails: the From domain publishes a policy and neither SPF nor DKIM passes aligned with it." },
  { signal: "display_name_spoof", final: true, severity: "medium", weight: 4, matcher: displayNameSpoof,
    description: "The display name shows an email address or domain of another organisation than the sender's, or claims a well-known brand (PayPal, Microsoft, DHL, …) the sender domain does not belong to (by the Public Suffix List; a consumer mailbox such as outlook.com never counts as the brand's; an email service provider's domain does when a DKIM signature of the brand's domain verifies)." },
  { signal: "callback_scam", severity: "medium", weight: 4, matcher: callbackScam,
    description: "A phone number to call to cancel, refund or dispute an order, renewal, invoice or charge the reader supposedly made (\"if you did not authorize this, call +1 …\")." },
  { signal: "lookalike_domain", severity: "medium", weight: 4, matcher: lookalikeDomain,
    description: "A sender, Reply-To or link domain imitates a well-known brand: homoglyphs or digits for letters (paypa1, rnicrosoft, Cyrillic а), one typo away (arnazon), or brand plus lure word (paypal-secure-login)." },
  { signal: "own_domain_spoof", final: true, severity: "medium", weight: 4, matcher: ownDomainSpoof,
    description: "From claims this service's own mail domain, but the message arrived over SMTP from outside without passing DKIM or DMARC." },
  { signal: "exfiltration_request", severity: "medium", weight: 4, matcher: exfiltrationRequest,
    description: "Asks to forward the whole mailbox or all messages, or to send passwords, API keys, tokens or one-time codes: what an attacker asks of an agent with mailbox access." },
  { signal: "spf_fail", final: true, severity: "medium", weight: 3, matcher: (c) => c.auth.spf === "fail",
    description: "SPF fails: the envelope sender's domain does not allow the connecting IP (-all)." },
  { signal: "link_text_mismatch", severity: "medium", weight: 3, matcher: linkTextMismatch,
    description: "An HTML link's text shows a URL or domain of another organisation than the one its href goes to. In list and ESP mail (List-Unsubscribe, List-Id, Feedback-ID, X-Mailgun-*, X-SES-*, SendGrid, …) links through the List-Unsubscribe host's, the sender's, its DKIM signer's or a known ESP's click tracking do not count." },
  { signal: "brand_impersonation", severity: "medium", weight: 3, matcher: brandImpersonation,
    description: "A well-known brand (Amazon, Netflix, MetaMask, Norton, …) is claimed in the display name, or addressed as the reader's own account, order or payment in the subject or body (\"your Amazon order\"), in a mail about an account, order or payment, while the sender's organisation (Public Suffix List) is not the brand's. In list mail only the display name counts." },
  { signal: "obfuscated_text", severity: "medium", weight: 3, matcher: obfuscatedText,
    description: "Words broken up with invisible or combining characters (soft hyphen, combining grapheme joiner, zero-width or variation characters, combining marks that do not compose) in three or more places: text made to read normally while slipping past filters." },
  { signal: "freemail_brand_sender", severity: "medium", weight: 3, matcher: freemailBrandSender,
    description: "A consumer mailbox (gmail.com, outlook.com, yahoo.com, …) whose display name claims a brand or a company department (billing, support, accounts payable, security team, helpdesk), or whose subject names a brand: companies do not invoice from free-mail." },
  { signal: "lure_attachment", severity: "medium", weight: 3, matcher: lureAttachment,
    description: "An HTML or SVG attachment (a page that opens from disk, often a login form), or a document named as an invoice, payment, firmware update, voicemail or order in a mail that presses for urgency (urgent, immediately, within 24 hours, final notice, …)." },
  { signal: "ip_url", severity: "medium", weight: 3, matcher: ipUrl,
    description: "A link to a raw IPv4/IPv6 host, including obfuscated forms (decimal, hex, octal)." },
  { signal: "dangerous_link_scheme", severity: "medium", weight: 3, matcher: dangerousLinkScheme,
    description: "A link with a javascript:, vbscript:, data:, file:, search-ms: or ms-*: scheme." },
  { signal: "urgent_payment_language", severity: "medium", weight: 3, matcher: urgentPaymentLanguage,
    description: "Payment-fraud wording: wire transfer, gift cards, urgent invoice or payment, changed bank details, pay immediately, crypto wallet." },
  { signal: "credential_request", severity: "medium", weight: 3, matcher: credentialRequest,
    description: "Credential-phishing wording: verify your password or identity, account suspended/locked, password expiring, mailbox full, log in to avoid…" },
  { signal: "macro_attachment", severity: "medium", weight: 3, matcher: macroAttachment,
    description: "A macro-enabled Office document (docm, xlsm, pptm, xlsb, …)." },
  { signal: "upstream_spam_flag", final: true, severity: "medium", weight: 3, matcher: (c) => c.upstream?.spam === true,
    description: "A hop the operator trusts (TRUSTED_RELAYS) marked the message as spam (X-Spam-Flag: YES, X-Spam-Status: Yes, X-Spam: yes, Exchange SCL ≥ 5) above its Received field; the same fields written by the sender, or by any untrusted hop, are ignored." },
  { signal: "parse_failed", severity: "medium", weight: 3, matcher: (c) => c.mail === null,
    description: "The message could not be parsed within budget, so its content was not checked." },
  // low
  { signal: "dkim_fail", final: true, severity: "low", weight: 2, matcher: (c) => c.auth.dkim === "fail",
    description: "DKIM fails: a signature does not verify (changed body or headers) and none passes. Low on its own, as mailing lists break signatures." },
  { signal: "reply_to_mismatch", severity: "low", weight: 2, matcher: replyToMismatch,
    description: "A Reply-To address belongs to another organisation than the From address." },
  { signal: "hidden_text", severity: "low", weight: 2, matcher: hiddenText,
    description: "Text a reader cannot see: 3+ words of HTML hidden by display:none, visibility:hidden, font-size:0, opacity:0, zero height, off-screen position, the hidden attribute, a <style> class/id rule, or text in the background colour; zero-width characters inside words; Unicode tag characters; or instructions in comments, alt/title text, <title>, <script>, <style>." },
  { signal: "punycode_domain", severity: "low", weight: 2, matcher: punycodeDomain,
    description: "An internationalised (xn--) domain in the sender, Reply-To or a link." },
  { signal: "invalid_from", severity: "low", weight: 2, matcher: invalidFrom,
    description: "No From field, more than one, or one without a readable address." },
  { signal: "html_form", severity: "low", weight: 2, matcher: htmlForm,
    description: "The HTML contains a form (credentials typed straight into the message)." },
  { signal: "free_hosting_link", severity: "low", weight: 2, matcher: freeHostingLink,
    description: "A link to a page on a free hosting or form platform (firebaseapp.com, web.app, ipfs.io, r2.dev, wixsite.com, weebly.com, jotform.com, …), where credential lures are put up in minutes." },
  { signal: "url_shortener", severity: "low", weight: 1, matcher: urlShortener,
    description: "A link through a URL shortener (bit.ly, tinyurl.com, …) that hides its destination." },
  { signal: "spf_softfail", final: true, severity: "low", weight: 1, matcher: (c) => c.auth.spf === "softfail",
    description: "SPF softfail (~all): the domain does not vouch for the connecting IP." },
  // info: context for triage and loop protection, no risk
  { signal: "auto_submitted", severity: "info", weight: 0, matcher: autoSubmitted,
    description: "Sent by a machine: Auto-Submitted other than \"no\", X-Autoreply or X-Autorespond." },
  { signal: "bulk", severity: "info", weight: 0, matcher: bulk,
    description: "List or bulk mail: List-Id, List-Unsubscribe, or Precedence: bulk|list|junk." },
  { signal: "sender_blocked", final: true, severity: "info", weight: 0, matcher: (c) => c.disposition === "blocked",
    description: "The account blocked this sender (sender profile disposition `blocked`): the message is triaged spam." },
  { signal: "sender_trusted", final: true, severity: "info", weight: 0, matcher: (c) => c.disposition === "trusted" && c.auth.dmarc === "pass",
    description: "The account trusts this sender and DMARC authenticates the From address (an agent protocol sender is authenticated by its API key): risk is one level lower." },
  { signal: "sender_trusted_unverified", final: true, severity: "info", weight: 0, matcher: (c) => c.disposition === "trusted" && c.auth.dmarc !== "pass",
    description: "The account trusts this sender, but the From address is not authenticated (no DMARC pass), so the trust is not applied: anyone can write that From." },
  { signal: "bounce", severity: "info", weight: 0, matcher: bounce,
    description: "A bounce or receipt: null envelope sender, MAILER-DAEMON/postmaster, or multipart/report." },
];

/** The rules that read the message only, and those that need auth or the account's disposition. */
export const CONTENT_RULES: readonly Rule[] = RULES.filter((r) => !r.final);
export const FINAL_RULES: readonly FinalRule[] = RULES.filter((r): r is FinalRule => r.final === true);

/** Runs the table; a matcher that throws counts as not matched and never fails the assessment. */
export function evaluate(ctx: AssessContext, rules: readonly Rule[] = RULES): string[] {
  return run(rules, (rule) => rule.matcher(ctx));
}

/** Runs the final rules, which read only what FinalContext holds. */
export function evaluateFinal(ctx: FinalContext, rules: readonly FinalRule[] = FINAL_RULES): string[] {
  return run(rules, (rule) => rule.matcher(ctx));
}

function run<R extends Rule>(rules: readonly R[], matches: (rule: R) => boolean): string[] {
  const hits: string[] = [];
  for (const rule of rules) {
    let hit = false;
    try {
      hit = matches(rule);
    } catch {
      hit = false;
    }
    if (hit) hits.push(rule.signal);
  }
  return hits.sort();
}

export function riskOf(signals: readonly string[], rules: readonly Rule[] = RULES): { level: RiskLevel; score: number } {
  let score = 0;
  let highSeverity = false;
  for (const s of signals) {
    const rule = rules.find((r) => r.signal === s);
    if (!rule) continue;
    score += rule.weight;
    if (rule.severity === "high") highSeverity = true;
  }
  const level: RiskLevel = highSeverity || score >= RISK_THRESHOLDS.high ? "high" : score >= RISK_THRESHOLDS.medium ? "medium" : "low";
  // A trusted, authenticated sender earns one level, never more: its account may be compromised.
  if (signals.includes("sender_trusted")) return { level: level === "high" ? "medium" : "low", score };
  return { level, score };
}

const SEVERITY_RANGE: Record<Severity, [number, number]> = { info: [0, 0], low: [1, 2], medium: [3, 6], high: [7, 100] };

/** Keeps a rule's weight inside its severity's band, so severity alone predicts its minimum risk. */
export function checkRuleTable(rules: readonly Rule[] = RULES): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const r of rules) {
    if (seen.has(r.signal)) problems.push(`${r.signal}: duplicate`);
    seen.add(r.signal);
    if (!/^[a-z][a-z0-9_]*$/.test(r.signal)) problems.push(`${r.signal}: not snake_case`);
    const [lo, hi] = SEVERITY_RANGE[r.severity];
    if (r.weight < lo || r.weight > hi) problems.push(`${r.signal}: weight ${r.weight} outside ${r.severity} band ${lo}-${hi}`);
    if (!r.description) problems.push(`${r.signal}: no description`);
  }
  return problems;
}

/** The rule table as Markdown, for the README. */
export function rulesMarkdown(rules: readonly Rule[] = RULES): string {
  const rows = rules.map((r) => `| \`${r.signal}\` | ${r.severity} | ${r.weight} | ${r.description.replace(/\|/g, "\\|")} |`);
  return ["| signal | severity | weight | meaning |", "|---|---|---|---|", ...rows].join("\n");
}
