import { timestamp } from "drizzle-orm/pg-core";

/** A UTC timestamp column that defaults to the database's now(). */
export const timestampNow = (name: string) => timestamp(name, { withTimezone: true, mode: "date" }).notNull().defaultNow();
