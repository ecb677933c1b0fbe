import { AppError } from "../errors.ts";

const COLOR_RE = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/;

/** A label name is trimmed, 1-64 characters, without control characters; compared case-insensitively. */
export function checkLabel(name: string, color: string | null | undefined): { name: string; nameKey: string; color: string | null } {
  const trimmed = name.trim();
  // biome-ignore lint: control characters are exactly what this refuses
  if (trimmed.length === 0 || trimmed.length > 64 || /[\u0000-\u001f\u007f-\u009f]/.test(trimmed)) {
    throw new AppError("validation_error", "label name must be 1 to 64 characters without control characters", { fields: [{ path: "body.name", message: "1 to 64 characters, no control characters" }] });
  }
  const c = color?.trim().toLowerCase() ?? null;
  if (c !== null && !COLOR_RE.test(c)) {
    throw new AppError("validation_error", "color must be a hex colour like #1a73e8 or #fa0", { fields: [{ path: "body.color", message: "a hex colour: #rgb or #rrggbb" }] });
  }
  return { name: trimmed, nameKey: trimmed.toLowerCase(), color: c };
}
