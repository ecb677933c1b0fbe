import { Elysia, t } from "elysia";
import type { SenderProfiles } from "../../domain/sender-profiles.ts";
import { AccountParams } from "../accounts/model.ts";
import { checkListQuery } from "../messages/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { Paged, paged, pageOf } from "../schemas.ts";
import {
  changesOf,
  CreateSenderProfileBody,
  SenderProfile,
  senderProfile,
  SENDER_PROFILE_FILTERS,
  SenderProfileListQuery,
  SenderProfileParams,
  UpdateSenderProfileBody,
} from "./model.ts";

const One = t.Object({ sender_profile: SenderProfile });
const TAGS = ["Sender profiles"];

export function senderProfileRoutes(profiles: SenderProfiles, mutation: MutationHooks) {
  const update = async ({ params, body }: { params: { profileId: string }; body: Parameters<typeof changesOf>[0] }) => ({
    sender_profile: senderProfile(await profiles.update(params.profileId, changesOf(body))),
  });
  const updateOptions = {
    params: SenderProfileParams,
    body: UpdateSenderProfileBody,
    response: { 200: One },
    detail: { summary: "Change a sender profile", description: "Sets the fields given (disposition, notes, display_name); the others keep their value. A new disposition applies to mail processed from then on.", tags: TAGS },
  };
  return new Elysia({ name: "sender-profiles" })
    .get(
      "/v1/accounts/:accountId/sender-profiles",
      async ({ params, query }) => {
        const page = pageOf(query);
        const { items, total } = await profiles.list(params.accountId, { address: query.address, disposition: query.disposition }, page.page, page.limit);
        return paged(items.map(senderProfile), total, page);
      },
      {
        params: AccountParams,
        query: SenderProfileListQuery,
        transform: checkListQuery(SENDER_PROFILE_FILTERS),
        response: { 200: Paged(SenderProfile) },
        detail: { summary: "List sender profiles", description: "Most recently seen first. `address` is a case-insensitive substring; `disposition` filters.", tags: TAGS },
      },
    )
    .get("/v1/sender-profiles/:profileId", async ({ params }) => ({ sender_profile: senderProfile(await profiles.get(params.profileId)) }), {
      params: SenderProfileParams,
      response: { 200: One },
      detail: { summary: "Get a sender profile", tags: TAGS },
    })
    .guard(mutation, (writes) =>
      writes
        .post(
          "/v1/accounts/:accountId/sender-profiles",
          async ({ params, body, set }) => {
            const { profile, created } = await profiles.create(params.accountId, body.address, changesOf(body));
            set.status = created ? 201 : 200;
            return { sender_profile: senderProfile(profile) };
          },
          {
            params: AccountParams,
            body: CreateSenderProfileBody,
            response: { 200: One, 201: One },
            detail: {
              summary: "Create a sender profile",
              description: "Profiles are also made by inbound mail. Creating one for an address that already has a profile sets the given fields on it and answers 200 with it; a new one is 201.",
              tags: TAGS,
            },
          },
        )
        .put("/v1/sender-profiles/:profileId", update, updateOptions)
        .patch("/v1/sender-profiles/:profileId", update, updateOptions)
        .delete("/v1/sender-profiles/:profileId", async ({ params }) => ({ sender_profile: senderProfile(await profiles.remove(params.profileId)) }), {
          params: SenderProfileParams,
          response: { 200: One },
          detail: { summary: "Delete a sender profile", description: "Forgets the disposition and notes; the next mail from the address starts a new, neutral profile.", tags: TAGS },
        }),
    );
}
