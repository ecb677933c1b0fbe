import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import type { Principal } from "../../auth/authenticate.ts";
import { MailboxSummary, mailboxSummary } from "../mailboxes/model.ts";
import { Uuid } from "../schemas.ts";

const Whoami = t.Union([
  t.Object({ kind: t.Literal("admin") }, { additionalProperties: false }),
  t.Object(
    {
      kind: t.Literal("mailbox_key"),
      key_id: Uuid(),
      runtime: t.Boolean({ description: "true for an agent runtime's key (scope `runtime`)" }),
      mailbox: MailboxSummary,
      account_id: Uuid(),
    },
    { additionalProperties: false },
  ),
]);

/**
 * GET /v1/whoami (ours): what the token in use is. A client that holds only an API key (the
 * console after signing in) learns from it which mailbox the key opens; nothing else tells it.
 */
export function whoamiRoutes(mailboxes: Mailboxes) {
  return new Elysia({ name: "whoami" }).get(
    "/v1/whoami",
    async (ctx) => {
      const principal = (ctx as unknown as { principal: Principal }).principal;
      if (principal.kind === "admin") return { principal: { kind: "admin" as const } };
      const mailbox = await mailboxes.get(principal.mailboxId);
      return { principal: { kind: "mailbox_key" as const, key_id: principal.keyId, runtime: principal.runtime, mailbox: mailboxSummary(mailbox), account_id: mailbox.accountId } };
    },
    {
      response: { 200: t.Object({ principal: Whoami }) },
      detail: { summary: "Who the token is", description: "The admin token, or a mailbox API key with its mailbox.", tags: ["Utility"] },
    },
  );
}
