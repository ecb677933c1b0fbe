/**
 * The address scheme. A primary mailbox is the account itself:
 *   {account}@MAIL_DOMAIN, protocol host {account}.AGENT_DOMAIN
 * An agent mailbox nests under its account:
 *   {mailbox}.{account}@MAIL_DOMAIN, protocol host {mailbox}.{account}.AGENT_DOMAIN
 * Slugs never contain dots, so every address maps back to exactly one mailbox.
 */
export interface Domains {
  mailDomain: string;
  agentDomain: string;
}

export function mailboxAddresses(d: Domains, accountSlug: string, mailboxSlug: string | null) {
  const local = mailboxSlug === null ? accountSlug : `${mailboxSlug}.${accountSlug}`;
  return { emailAddress: `${local}@${d.mailDomain}`, protocolHost: `${local}.${d.agentDomain}` };
}
