import { sql, type SQL } from "drizzle-orm";
import { attachments, labels, messageLabels, messages, threadLabels } from "../../db/schema/index.ts";
import { likeSubstring } from "../domain/like.ts";
import type { SearchFilter } from "./query.ts";
import { SEARCH_CONFIG, messageVector } from "./vectors.ts";

/**
 * One operator of the query syntax as a condition on `messages`. Negation wraps it in
 * `not coalesce(…, false)`, so a missing value (no risk level yet) counts as "not that".
 */
export function filterCondition(f: SearchFilter): SQL {
  const positive = positiveCondition(f);
  return f.negated ? sql`not coalesce((${positive}), false)` : positive;
}

function positiveCondition(f: SearchFilter): SQL {
  switch (f.field) {
    case "from":
      return sql`${messages.fromAddress} ilike ${likeSubstring(f.value.toLowerCase())}`;
    case "to":
      return sql`(${messages.toAddress} ilike ${likeSubstring(f.value)} or ${messages.cc}::text ilike ${likeSubstring(f.value)})`;
    case "subject":
      // The index narrows by the whole vector; the subject alone then confirms.
      return sql`(${messageVector} @@ phraseto_tsquery(${SEARCH_CONFIG}, ${f.value}) and to_tsvector(${SEARCH_CONFIG}, left(${messages.subject}, 2000)) @@ phraseto_tsquery(${SEARCH_CONFIG}, ${f.value}))`;
    case "label":
      // A label on the message or on its thread.
      return sql`(exists (select 1 from ${messageLabels} join ${labels} on ${labels.id} = ${messageLabels.labelId} where ${messageLabels.messageId} = ${messages.id} and lower(${labels.name}) = lower(${f.value}))
        or exists (select 1 from ${threadLabels} join ${labels} on ${labels.id} = ${threadLabels.labelId} where ${threadLabels.threadId} = ${messages.threadId} and lower(${labels.name}) = lower(${f.value})))`;
    case "has":
      return sql`exists (select 1 from ${attachments} where ${attachments.messageId} = ${messages.id})`;
    case "is":
      return isCondition(f.value);
    case "risk":
      return sql`${messages.riskLevel} = ${f.value}`;
    case "triage":
      return sql`${messages.triageLabel} = ${f.value}`;
    case "before":
      return sql`${messages.createdAt} < ${f.value}::timestamptz`;
    case "after":
      return sql`${messages.createdAt} >= ${f.value}::timestamptz`;
  }
}

function isCondition(value: string): SQL {
  switch (value) {
    case "inbound":
    case "outbound":
      return sql`${messages.direction} = ${value}`;
    case "archived":
      return sql`${messages.status} = 'archived'`;
    case "reviewed":
      return sql`${messages.reviewedAt} is not null`;
    case "unreviewed":
      return sql`(${messages.direction} = 'inbound' and ${messages.reviewedAt} is null)`;
    case "processed":
      return sql`${messages.processedAt} is not null`;
    default:
      // The parser admits only the values above.
      throw new Error(`is:${value} has no condition`);
  }
}
