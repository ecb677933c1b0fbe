/**
 * One thread of the Assessor's auth pool (index.ts): runs checkAuth with the system resolver.
 * mailauth hashes the whole body of a DKIM-signed message in JavaScript (a few hundred ms per
 * MB of short lines), which must not hold the event loop; the DNS waits come along with it.
 */
import { serveWorker } from "../../workers/serve.ts";
import type { AuthResults, Envelope } from "../types.ts";
import { checkAuth } from "./auth.ts";

export type AuthRequest = { raw: Uint8Array; envelope: Envelope; mta: string; timeoutMs: number; dnsServers?: string[] };

// Several calls at a time for the head-only pool (Assessor): each awaits its DNS, so they interleave.
serveWorker<AuthRequest, AuthResults>(({ raw, envelope, mta, timeoutMs, dnsServers }) => checkAuth(raw, envelope, { mta, timeoutMs, dnsServers }));
