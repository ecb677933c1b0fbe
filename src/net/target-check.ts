import { validationError } from "../errors.ts";
import { parseTargetUrl, resolveTarget, type Lookup } from "./ssrf.ts";

export interface TargetPolicy {
  allowPrivate: boolean;
  lookup?: Lookup;
}

/**
 * The registration-time check of a URL the service will later POST to (webhook endpoints,
 * protocol callbacks, agent runtimes): well formed, and not resolving to a blocked address.
 * Returns the URL normalised; a refusal is a validation_error naming `path`.
 */
export async function checkTargetUrl(raw: string, path: string, policy: TargetPolicy): Promise<string> {
  const parsed = parseTargetUrl(raw);
  if (!parsed.ok) throw validationError(`${path} ${parsed.reason}`, [{ path, message: parsed.reason }]);
  // With private targets allowed there is nothing a look-up could refuse.
  if (policy.allowPrivate) return parsed.url.toString();
  const target = await resolveTarget(parsed.url, { allowPrivate: false, lookup: policy.lookup });
  // A name that does not resolve now is not shown to be private: it is taken, and every
  // request checks it again before connecting.
  if (!target.ok && target.kind === "blocked") throw validationError(`${path} is not allowed: ${target.reason}`, [{ path, message: target.reason }]);
  return parsed.url.toString();
}
