/**
 * The cluster's own errors on the mailbox wire (actors/mailbox/wire.ts carries the errors it
 * knows; these it is told about): a node that no longer holds a mailbox, no owner reached in
 * time, an owner lost after accepting. Imported for its effect by ./placement.ts.
 */
import { registerWireError } from "../../actors/mailbox/wire.ts";
import { NotOwnerError, PlacementOutcomeUnknownError, PlacementUnavailableError } from "../../actors/runtime/index.ts";

const str = (v: unknown) => (typeof v === "string" ? v : "");

registerWireError({
  name: "NotOwnerError",
  matches: (err): err is NotOwnerError => err instanceof NotOwnerError,
  encode: (err) => ({ kind: err.kind ?? "", id: err.id ?? "" }),
  decode: (f) => new NotOwnerError(str(f.kind), str(f.id)),
});
registerWireError({
  name: "PlacementUnavailableError",
  matches: (err): err is PlacementUnavailableError => err instanceof PlacementUnavailableError,
  encode: (err) => ({ kind: err.kind ?? "", id: err.id ?? "", retryAfterMs: err.retryAfterMs }),
  decode: (f) => new PlacementUnavailableError(str(f.kind), str(f.id), typeof f.retryAfterMs === "number" ? f.retryAfterMs : 1000),
});
registerWireError({
  name: "PlacementOutcomeUnknownError",
  matches: (err): err is PlacementOutcomeUnknownError => err instanceof PlacementOutcomeUnknownError,
  encode: (err) => ({ kind: err.kind ?? "", id: err.id ?? "" }),
  decode: (f) => new PlacementOutcomeUnknownError(str(f.kind), str(f.id)),
});
