/**
 * Our own strict address check, applied before any address is stored or handed to a mail
 * library: an RFC 5321 mailbox of dot-atom local part and a DNS domain, nothing else. No
 * quoted local parts, comments, display names, IP literals or white space, and so never a
 * CR, LF or NUL that could reach a header.
 */
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LOCAL_RE = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*$`);
const LABEL_RE = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD_RE = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export type AddressCheck = { ok: true; address: string } | { ok: false; reason: string };

/** Checks an address and returns it with the domain lowercased (the local part keeps its case). */
export function checkAddress(input: string): AddressCheck {
  if (input.length > 254) return { ok: false, reason: "is longer than 254 characters" };
  const at = input.lastIndexOf("@");
  if (at <= 0 || at === input.length - 1) return { ok: false, reason: "must look like local@domain" };
  const local = input.slice(0, at);
  const domain = input.slice(at + 1).toLowerCase();
  if (local.length > 64) return { ok: false, reason: "has a local part longer than 64 characters" };
  if (!LOCAL_RE.test(local)) return { ok: false, reason: "has characters not allowed in a local part" };
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL_RE.test(l))) return { ok: false, reason: "has an invalid domain" };
  if (!TLD_RE.test(labels[labels.length - 1]!)) return { ok: false, reason: "has an invalid top-level domain" };
  return { ok: true, address: `${local}@${domain}` };
}

/** For lists keyed by address (suppressions): compared case-insensitively, stored lowercase. */
export function normalizeAddress(input: string): AddressCheck {
  const checked = checkAddress(input.trim());
  return checked.ok ? { ok: true, address: checked.address.toLowerCase() } : checked;
}
