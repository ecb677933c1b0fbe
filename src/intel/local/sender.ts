import type { SenderAssessment, SenderFacts } from "../engine.ts";

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const pct = (n: number) => `${Math.round(n * 100)}%`;

/**
 * A sender's standing from its facts, by fixed thresholds, and a sentence or two saying why.
 * Blocked beats everything; then a history of risky mail or failed authentication; then how
 * long and how much the sender has written.
 */
export function assessSender(f: SenderFacts): SenderAssessment {
  const total = f.volume.inbound;
  const risky = (f.risk.high ?? 0) + (f.triage.spam ?? 0);
  const dmarcTotal = sum(f.authentication.dmarc);
  const dmarcFail = f.authentication.dmarc.fail ?? 0;
  const parts: string[] = [];

  let standing: SenderAssessment["standing"];
  if (f.disposition === "blocked") standing = "unwanted";
  else if (total > 0 && (risky / total >= 0.3 || (dmarcTotal > 0 && dmarcFail / dmarcTotal >= 0.3))) standing = "suspicious";
  else if (total <= 1) standing = "new";
  else if (total >= 5 && (f.reply_rate ?? 0) >= 0.2) standing = "established";
  else standing = "occasional";

  const who = f.display_name ? `${f.display_name} <${f.address}>` : f.address;
  parts.push(total === 0 ? `${who} has not written to this account yet.` : `${who} sent ${total} message${total === 1 ? "" : "s"} (${f.volume.last_30_days} in the last 30 days) since ${f.first_seen_at?.slice(0, 10) ?? "an unknown date"}.`);
  if (f.threads > 0) parts.push(f.replied_threads > 0 ? `You replied in ${f.replied_threads} of ${f.threads} conversations (${pct(f.reply_rate ?? 0)}).` : `You have not replied in any of ${f.threads} conversations.`);
  if (risky > 0) parts.push(`${risky} message${risky === 1 ? " was" : "s were"} high risk or spam.`);
  if (dmarcTotal > 0) {
    const pass = f.authentication.dmarc.pass ?? 0;
    parts.push(pass === dmarcTotal ? "All of its mail passed DMARC." : `${pass} of ${dmarcTotal} messages passed DMARC${dmarcFail ? `, ${dmarcFail} failed` : ""}.`);
  }
  if (f.disposition !== "neutral") parts.push(f.disposition === "blocked" ? "The account blocked this sender: its mail is triaged spam." : "The account trusts this sender.");
  return { assessment: parts.join(" "), standing };
}
