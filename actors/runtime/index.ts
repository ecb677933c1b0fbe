/**
 * Actor runtime: one live instance per (kind, id), messages handled one at a
 * time in arrival order, state loaded on first use and released when idle.
 * This is the only module callers import.
 */
export { ActorSystem } from "./system.ts";
export { LocalPlacement, type Placement } from "./placement.ts";
export {
  NatsPlacement,
  NotOwnerError,
  PlacementOutcomeUnknownError,
  PlacementUnavailableError,
  type NatsPlacementOptions,
  type Outcome,
  type Ownership,
  type WireCodec,
} from "./nats-placement.ts";
export {
  commandActor,
  commandsFor,
  installCommands,
  UnknownCommandError,
  type ArgsOf,
  type CommandActorOptions,
  type CommandClient,
  type CommandMap,
  type CommandMessage,
  type CommandName,
  type CommandSpec,
  type CommandTarget,
  type ReplyOf,
} from "./commands.ts";
export {
  ActorActivationError,
  ActorError,
  ActorStoppedError,
  ActorTimeoutError,
  UnknownActorKindError,
  type ActorContext,
  type BatchOutcome,
  type ActorDefinition,
  type ActorErrorOptions,
  type ActorLogger,
  type ActorSystemOptions,
  type AskOptions,
  type ShutdownOptions,
} from "./types.ts";
