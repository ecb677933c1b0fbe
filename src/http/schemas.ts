import { t } from "elysia";

export const Uuid = (description?: string) => t.String({ format: "uuid", ...(description ? { description } : {}) });
export const Timestamp = t.String({ format: "date-time", description: "UTC, ISO 8601" });

export const ErrorEnvelope = t.Object(
  {
    error: t.Object({
      code: t.String({ description: "stable machine-readable code, e.g. validation_error" }),
      message: t.String({ description: "human-readable explanation" }),
      details: t.Record(t.String(), t.Unknown(), { description: "structured context, e.g. the failing fields" }),
    }),
  },
  { $id: "#/components/schemas/Error" },
);

export const iso = (d: Date): string => d.toISOString();
