/**
 * The client thread of bench/stall-profile.ts: builds each large request and sends it, so that
 * none of that work lands on the service's thread, whose CPU profile is what the bench reads.
 */
declare var self: Worker;

export type ProfileInput = "send" | "wrongtype" | "protocol";

self.onmessage = async (e: MessageEvent<{ url: string; token: string; input: ProfileInput; mailboxId: string; protocolHost: string }>) => {
  const { url, token, input, mailboxId, protocolHost } = e.data;
  const request =
    input === "wrongtype"
      ? { method: "PUT", path: `/v1/mailboxes/${mailboxId}/policy`, body: { allow_outbound: "a".repeat(10 * 1024 * 1024 - 64) } }
      : input === "send"
        ? { method: "POST", path: `/v1/mailboxes/${mailboxId}/send`, body: { to: ["nobody@example.com"], subject: "big", textBody: "t".repeat(4 << 20), htmlBody: `<p>${"h".repeat(4 << 20)}</p>` } }
        : { method: "POST", path: "/.agent/inbox", body: { subject: "hostile", body: "On 3/4 call +44 20 7946 0958 re INV-2231 $400 by Friday 5pm, 12 Baker Street, London https://x.y/z ann@x.io.\n".repeat(1900) } };
  const bytes = new TextEncoder().encode(JSON.stringify(request.body));
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  if (input === "protocol") headers.host = protocolHost;
  const res = await fetch(url + request.path, { method: request.method, headers, body: bytes });
  await res.arrayBuffer();
  self.postMessage({ status: res.status });
};
