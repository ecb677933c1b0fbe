import { t } from "elysia";
import type { AccountRow } from "../../../db/schema/index.ts";
import { ACCOUNT_SLUG, MAILBOX_SLUG } from "../../domain/slugs.ts";
import { iso, OPEN_BODY_MAX_PROPERTIES, Timestamp, Uuid } from "../schemas.ts";

const accountStatus = t.Union([t.Literal("active")], { description: "accounts are `active`; other states are reserved for later use" });

export const Account = t.Object(
  { id: Uuid(), slug: t.String(), display_name: t.String(), status: accountStatus, created_at: Timestamp },
  { additionalProperties: false },
);
export const AccountBrief = t.Object({ id: Uuid(), slug: t.String(), display_name: t.String(), status: accountStatus }, { additionalProperties: false });

// Lengths and the pattern are checked again by the domain, which also knows reserved names.
export const CreateAccountBody = t.Object(
  {
    slug: t.String({ minLength: ACCOUNT_SLUG.min, maxLength: ACCOUNT_SLUG.max, description: "lowercase letters, digits and hyphens" }),
    displayName: t.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: true, maxProperties: OPEN_BODY_MAX_PROPERTIES },
);
export const CreateMailboxBody = t.Object(
  { slug: t.String({ minLength: MAILBOX_SLUG.min, maxLength: MAILBOX_SLUG.max, description: "lowercase letters, digits and hyphens; not `main` or `primary`" }) },
  { additionalProperties: true, maxProperties: OPEN_BODY_MAX_PROPERTIES },
);
export const AccountParams = t.Object({ accountId: Uuid("account id") });

export const account = (a: AccountRow) => ({ id: a.id, slug: a.slug, display_name: a.displayName, status: a.status as "active", created_at: iso(a.createdAt) });
export const accountBrief = (a: AccountRow) => ({ id: a.id, slug: a.slug, display_name: a.displayName, status: a.status as "active" });
