import { Elysia, t } from "elysia";
import type { Accounts } from "../../domain/accounts.ts";
import { MailboxSummary, mailboxSummary } from "../mailboxes/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { checkPageRange, PageQuery, Paged, paged, pageOf } from "../schemas.ts";
import { Account, account, AccountBrief, accountBrief, AccountParams, CreateAccountBody, CreateMailboxBody } from "./model.ts";

export function accountRoutes(accounts: Accounts, mutation: MutationHooks) {
  return new Elysia({ name: "accounts" })
    .get(
      "/v1/accounts",
      async ({ query }) => {
        const page = pageOf(query);
        const { items, total } = await accounts.list(page.limit, page.offset);
        return paged(items.map(account), total, page);
      },
      {
        query: PageQuery,
        transform: checkPageRange,
        response: { 200: Paged(Account) },
        detail: { summary: "List accounts (ours)", description: "Newest first.", tags: ["Accounts"] },
      },
    )
    .get("/v1/accounts/:accountId", async ({ params }) => ({ account: account(await accounts.get(params.accountId)) }), {
      params: AccountParams,
      response: { 200: t.Object({ account: Account }) },
      detail: { summary: "Get an account", tags: ["Accounts"] },
    })
    .get(
      "/v1/accounts/:accountId/mailboxes",
      async ({ params }) => {
        const r = await accounts.mailboxes(params.accountId);
        return { account: accountBrief(r.account), mailboxes: r.mailboxes.map(mailboxSummary) };
      },
      {
        params: AccountParams,
        response: { 200: t.Object({ account: AccountBrief, mailboxes: t.Array(MailboxSummary) }) },
        detail: { summary: "List the mailboxes of an account", description: "Oldest first; the primary mailbox comes first.", tags: ["Accounts"] },
      },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/accounts",
          async ({ body, set }) => {
            const created = await accounts.create({ slug: body.slug, displayName: body.displayName });
            set.status = 201;
            return { account: account(created.account), primary_mailbox: mailboxSummary(created.primary) };
          },
          {
            body: CreateAccountBody,
            response: { 201: t.Object({ account: Account, primary_mailbox: MailboxSummary }) },
            detail: { summary: "Create an account and its primary mailbox", tags: ["Accounts"] },
          },
        )
        .post(
          "/v1/accounts/:accountId/mailboxes",
          async ({ params, body, set }) => {
            const mailbox = await accounts.createMailbox(params.accountId, body.slug);
            set.status = 201;
            return { mailbox: mailboxSummary(mailbox) };
          },
          {
            params: AccountParams,
            body: CreateMailboxBody,
            response: { 201: t.Object({ mailbox: MailboxSummary }) },
            detail: { summary: "Create an agent mailbox", description: "The mailbox gets the default action `send_message`.", tags: ["Accounts"] },
          },
        ),
    );
}
