import { Elysia, t } from "elysia";
import { AppError } from "../../errors.ts";
import type { Ingest } from "../../mail/ingest.ts";
import { readHead } from "../../mail/parse/head.ts";
import type { Recipient, RecipientProblem, Recipients } from "../../mail/recipients.ts";
import type { HeaderField } from "../../mail/types.ts";
import type { MutationHooks } from "../pipeline.ts";
import { Uuid } from "../schemas.ts";

const PROBLEM: Record<RecipientProblem, (address: string) => AppError> = {
  not_local: (a) => new AppError("not_found", `${a} is not an address of this service`, { address: a }),
  unknown_mailbox: (a) => new AppError("not_found", `no mailbox has the address ${a}`, { address: a }),
  mailbox_disabled: (a) => new AppError("mailbox_disabled", `the mailbox of ${a} is disabled and does not accept mail`, { address: a }),
  invalid_reply_token: (a) => new AppError("invalid_reply_token", `the reply alias ${a} is not valid for this mailbox`, { address: a }),
  expired_reply_token: (a) => new AppError("expired_reply_token", `the reply alias ${a} has expired`, { address: a }),
};

/** HTTP ingress: the same pipeline as SMTP, for senders that speak HTTP (and for tests). */
export function inboundRoutes(ingest: Ingest, recipients: Recipients, mailDomain: string, mutation: MutationHooks) {
  return new Elysia({ name: "inbound" }).guard(mutation, (writes) =>
    writes.post(
      "/v1/inbound/email",
      async ({ body, query, set }) => {
        // The pipeline reads message/rfc822 as bytes (as `requestBody` below declares) and refuses
        // any other type; what is left is no body at all.
        if (!(body instanceof Uint8Array)) throw new AppError("unsupported_media_type", "send the raw message with Content-Type: message/rfc822");
        if (body.byteLength === 0) throw new AppError("validation_error", "the message is empty", { fields: [{ path: "body", message: "must be an RFC 5322 message" }] });
        const explicit = query.to === undefined ? undefined : Array.isArray(query.to) ? query.to : [query.to];
        const head = readHead(body);
        const addresses = explicit ?? headerRecipients(head, mailDomain);
        if (addresses.length === 0) throw new AppError("not_found", "the message names no recipient of this service (give ?to= or a To/Cc address)");
        const found: Recipient[] = [];
        for (const address of addresses) {
          const r = await recipients.resolve(address);
          if (!r.ok) throw PROBLEM[r.problem](r.address);
          found.push(r.recipient);
        }
        const { ids } = await ingest.accept({ raw: body, mailFrom: null, recipients: found, remoteAddress: null, heloName: null, headers: head });
        set.status = 202;
        return { message_ids: ids };
      },
      {
        query: t.Object({ to: t.Optional(t.Union([t.Array(t.String({ maxLength: 320 }), { maxItems: 100 }), t.String({ maxLength: 320 })])) }),
        response: { 202: t.Object({ message_ids: t.Array(Uuid()) }) },
        detail: {
          summary: "Deliver an inbound email over HTTP",
          description:
            "Body: the raw RFC 5322 message, Content-Type message/rfc822, kept byte for byte. `to` (repeatable) gives the envelope recipients; without it the To and Cc addresses of this service's domain are used. Every recipient must be deliverable or nothing is stored. Answers once the message is durable; parsing and assessment follow (message.processed).",
          tags: ["Inbound"],
          requestBody: { required: true, content: { "message/rfc822": { schema: { type: "string", format: "binary" } } } },
        },
      },
    ),
  );
}

function headerRecipients(headers: HeaderField[], mailDomain: string): string[] {
  const out = new Set<string>();
  for (const h of headers) {
    const key = h.key.toLowerCase();
    if (key !== "to" && key !== "cc") continue;
    for (const m of h.value.matchAll(/[^\s<>,;:"()]+@[^\s<>,;:"()]+/g)) {
      const address = m[0].toLowerCase();
      if (address.endsWith(`@${mailDomain}`)) out.add(address);
    }
  }
  return [...out];
}
