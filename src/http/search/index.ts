import { Elysia, t } from "elysia";
import type { Mailboxes } from "../../../actors/mailbox/client.ts";
import { messageLabelIds } from "../../../actors/mailbox/organize.ts";
import type { Db } from "../../../db/client.ts";
import { SEARCH_OPERATORS } from "../../search/query.ts";
import { SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, searchMessages } from "../../search/search.ts";
import { MailboxParams } from "../mailboxes/model.ts";
import { listFields, messageListItem } from "../messages/model.ts";
import type { MutationHooks } from "../pipeline.ts";
import { Int } from "../schemas.ts";

const SearchBody = t.Object(
  {
    query: t.String({ minLength: 1, maxLength: 1000, pattern: "^[^\\u0000]*$", description: "Free words, \"phrases\", -negation, OR, and operators (see the README)" }),
    limit: t.Optional(Int({ minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT, description: `Maximum results (default ${SEARCH_DEFAULT_LIMIT})` })),
  },
  { additionalProperties: false },
);

const SearchHit = t.Object(
  {
    ...listFields,
    rank: t.Number({ description: "Text relevance (0 to 1, subject above addresses and attachment names above body) weighed by freshness; 0 when the query has only operators" }),
    highlight: t.Object(
      {
        subject: t.String({ description: "The subject, HTML-escaped, matched words in <mark>" }),
        text: t.String({ description: "Up to two fragments of the text around the matches, HTML-escaped, matched words in <mark>" }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const SearchFilter = t.Object({ field: t.String(), value: t.String(), negated: t.Boolean() }, { additionalProperties: false });

const operators = Object.entries(SEARCH_OPERATORS)
  .map(([name, description]) => `\`${name}:\` ${description}`)
  .join("; ");

export function searchRoutes(mailboxes: Mailboxes, db: Db, mutation: MutationHooks) {
  return new Elysia({ name: "search" }).guard(mutation, (writes) =>
    writes.post(
      "/v1/mailboxes/:mailboxId/search",
      async ({ params, body }) => {
        const mailbox = await mailboxes.get(params.mailboxId);
        const limit = body.limit ?? SEARCH_DEFAULT_LIMIT;
        const result = await searchMessages(db, mailbox.id, body.query, limit);
        const labels = await messageLabelIds(
          db,
          result.hits.map((h) => h.row.id),
        );
        return {
          items: result.hits.map((h) => ({ ...messageListItem(h.row, labels.get(h.row.id) ?? []), rank: h.rank, highlight: h.highlight })),
          limit,
          has_more: result.hasMore,
          query: { text: result.query.text, terms: result.query.terms, filters: result.query.filters.map((f) => ({ field: f.field, value: f.value, negated: f.negated })) },
        };
      },
      {
        params: MailboxParams,
        body: SearchBody,
        response: {
          200: t.Object(
            {
              items: t.Array(SearchHit),
              limit: t.Integer(),
              has_more: t.Boolean({ description: "More messages match than `limit`" }),
              query: t.Object({ text: t.String(), terms: t.Array(t.String()), filters: t.Array(SearchFilter) }, { description: "How the query was read" }),
            },
            { additionalProperties: false },
          ),
        },
        detail: {
          summary: "Search the mailbox",
          description: `Full-text search over subject, bodies, addresses and attachment names (PostgreSQL tsvector, GIN index, websearch_to_tsquery). Most relevant first, freshness breaking near ties. Syntax: free words and "quoted phrases" (all must match), \`OR\` between words, \`-\` before a word, phrase or operator to exclude it. Operators: ${operators}. A syntax error is 400 validation_error with \`details.position\` (0-based).`,
          tags: ["Search"],
        },
      },
    ),
  );
}
