import { Elysia, type TSchema } from "elysia";
import type { IntelKind } from "../../../db/schema/index.ts";
import type { Intelligence } from "../../intel/service.ts";
import { MessageParams } from "../messages/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { ThreadParams } from "../threads/model.ts";
import { SenderProfileParams } from "../sender-profiles/model.ts";
import { DigestResponse, ExtractionsResponse, IntelBody, presentIntel, SenderIntelligenceResponse, SummaryResponse } from "./model.ts";

interface Resource {
  path: string;
  kind: IntelKind;
  idField: "message_id" | "thread_id" | "profile_id";
  param: "messageId" | "threadId" | "profileId";
  params: TSchema;
  response: TSchema;
  what: string;
  tag: string;
}

const RESOURCES: Resource[] = [
  { path: "/v1/messages/:messageId/summary", kind: "summary", idField: "message_id", param: "messageId", params: MessageParams, response: SummaryResponse, what: "message summary", tag: "Intelligence" },
  { path: "/v1/messages/:messageId/extractions", kind: "extractions", idField: "message_id", param: "messageId", params: MessageParams, response: ExtractionsResponse, what: "message extractions", tag: "Intelligence" },
  { path: "/v1/threads/:threadId/digest", kind: "digest", idField: "thread_id", param: "threadId", params: ThreadParams, response: DigestResponse, what: "thread digest", tag: "Intelligence" },
  {
    path: "/v1/sender-profiles/:profileId/intelligence",
    kind: "sender_intelligence",
    idField: "profile_id",
    param: "profileId",
    params: SenderProfileParams,
    response: SenderIntelligenceResponse,
    what: "sender intelligence",
    tag: "Sender profiles",
  },
];

/** GET the cached result (404 before one was made; remade when its source changed), POST to make one. */
export function intelRoutes(intel: Intelligence, mutation: MutationHooks) {
  let app = new Elysia({ name: "intelligence" });
  for (const r of RESOURCES) {
    app = app
      .get(r.path, async ({ params }) => presentIntel(r.idField, await intel.read(r.kind, (params as Record<string, string>)[r.param]!)), {
        params: r.params,
        response: { 200: r.response },
        detail: {
          summary: `Get the ${r.what}`,
          description: `The cached ${r.what}. When what it was made from has changed since (new messages, new text, new mail from the sender), it is made anew first. 404 until one was generated with POST.`,
          tags: [r.tag],
        },
      })
      .guard(mutation, (writes) =>
        writes.post(r.path, async ({ params, body }) => presentIntel(r.idField, await intel.generate(r.kind, (params as Record<string, string>)[r.param]!, body?.force ?? false)), {
          params: r.params,
          body: IntelBody,
          response: { 200: r.response },
          detail: {
            summary: `Generate the ${r.what}`,
            description: `Makes the ${r.what} with the configured engine (the OpenAI-compatible one when LLM_BASE_URL is set, falling back to the local one on a timeout or a bad answer; else the local one), stores and returns it. A cached result that is still fresh and came from the configured engine is returned as is unless \`force\` is true.`,
            tags: [r.tag],
          },
        }),
      ) as unknown as typeof app;
  }
  return app;
}
