import { Elysia, t } from "elysia";
import type { Suppressions } from "../../domain/suppressions.ts";
import type { MutationHooks } from "../pipeline.ts";
import { checkPageRange, PageQuery, Paged, paged, pageOf } from "../schemas.ts";
import { AccountParams, AddSuppressionBody, RemoveSuppressionQuery, Suppression, suppression } from "./model.ts";

export function suppressionRoutes(list: Suppressions, mutation: MutationHooks) {
  return new Elysia({ name: "suppressions" })
    .get(
      "/v1/accounts/:accountId/suppressions",
      async ({ params, query }) => {
        const page = pageOf(query);
        const { items, total } = await list.list(params.accountId, page.page, page.limit);
        return paged(items.map(suppression), total, page);
      },
      {
        params: AccountParams,
        query: PageQuery,
        transform: checkPageRange,
        response: { 200: Paged(Suppression) },
        detail: { summary: "List suppressed addresses", description: "Newest first.", tags: ["Suppressions"] },
      },
    )
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/accounts/:accountId/suppressions",
          async ({ params, body, set }) => {
            const { entry, created } = await list.add(params.accountId, body.address, body.reason);
            set.status = created ? 201 : 200;
            return { suppression: suppression(entry) };
          },
          {
            params: AccountParams,
            body: AddSuppressionBody,
            response: { 200: t.Object({ suppression: Suppression }), 201: t.Object({ suppression: Suppression }) },
            detail: {
              summary: "Suppress an address",
              description: "Sends from any mailbox of the account to this address are refused with 409 address_suppressed. The address is stored lowercase; adding one already listed returns it with 200.",
              tags: ["Suppressions"],
            },
          },
        )
        .delete(
          "/v1/accounts/:accountId/suppressions",
          async ({ params, query }) => ({ suppression: suppression(await list.remove(params.accountId, query.address)) }),
          {
            params: AccountParams,
            query: RemoveSuppressionQuery,
            response: { 200: t.Object({ suppression: Suppression }) },
            detail: { summary: "Remove a suppressed address", description: "Returns the removed entry; 404 when the address is not listed.", tags: ["Suppressions"] },
          },
        ),
    );
}
