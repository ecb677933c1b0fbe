import { describe, expect, test } from "bun:test";
import { collect, isMailroomError, MailroomError, sseMessages, verifyWebhook, WebhookVerificationError, type ErrorCode } from "../clients/typescript/src/index.ts";
import { deliveryHeaders } from "../src/webhooks/signing.ts";

/** The client's helpers on inputs made here: the signing code the service uses, SSE bytes. */
describe("client helpers", () => {
  test("verifyWebhook takes the callback header, a Headers object, bytes and several signatures", async () => {
    const secret = "ab".repeat(32);
    const body = JSON.stringify({ event: "protocol.response.created", response: { body: "hi" } });
    const headers = deliveryHeaders({ secret, event: "protocol.response.created", deliveryId: crypto.randomUUID(), body, now: new Date(), signatureHeader: "x-service-callback-signature" });
    const { "webhook-signature": _sig, ...legacy } = headers;
    expect(verifyWebhook(body, legacy, secret)).toMatchObject({ scheme: "service", event: "protocol.response.created" });
    expect(verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret).scheme).toBe("standard");
    // A second signature (a rotated key) next to the right one still verifies.
    const rotated = { ...headers, "webhook-signature": `v1,${Buffer.alloc(32).toString("base64")} ${headers["webhook-signature"]}` };
    expect(verifyWebhook(body, rotated, secret).scheme).toBe("standard");
    expect(() => verifyWebhook(body, { ...legacy, "x-service-callback-signature": "00" }, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, {}, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(body, legacy, secret, { scheme: "standard" })).toThrow(/missing webhook-id/);
  });

  test("the SSE reader follows the WHATWG rules: CRLF, multi-line data, comments, retry, split chunks", async () => {
    const text = "retry: 1500\r\n\r\n: keep-alive\n\nid: 1\r\nevent: a\r\ndata: {\"x\":\r\ndata: 1}\n\nevent: gap\ndata: {}\r\n\r\n";
    const bytes = new TextEncoder().encode(text);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        // Cut after every CR, so each CRLF arrives split across two chunks, then in 7-byte pieces.
        let start = 0;
        for (let i = 0; i < bytes.length; i++) {
          if (bytes[i] === 13 || i - start === 6) {
            c.enqueue(bytes.subarray(start, i + 1));
            start = i + 1;
          }
        }
        if (start < bytes.length) c.enqueue(bytes.subarray(start));
        c.close();
      },
    });
    expect(await collect(sseMessages(stream))).toEqual([{ retry: 1500 }, { id: "1", event: "a", data: '{"x":\n1}' }, { event: "gap", data: "{}" }]);
  });

  test("error codes are typed from the document's error responses (checked by tsc)", () => {
    const known: ErrorCode[] = ["address_suppressed", "outbound_disabled", "idempotency_key_reused", "rate_limit_exceeded"];
    // @ts-expect-error not a code the document declares
    const unknown: ErrorCode = "no_such_code";
    const err = new MailroomError({ status: 403, code: "outbound_disabled", message: "sending is off" });
    expect(isMailroomError(err, "outbound_disabled")).toBe(true);
    expect(isMailroomError(err, "forbidden")).toBe(false);
    expect(isMailroomError(new Error("x"))).toBe(false);
    expect(known).toHaveLength(4);
    expect(unknown as string).toBe("no_such_code");
  });
});
