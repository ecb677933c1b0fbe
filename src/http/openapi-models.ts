import type { TSchema } from "elysia";
import { Account, AccountBrief } from "./accounts/model.ts";
import { Action } from "./actions/model.ts";
import { ApiKey, ApiKeyListItem } from "./api-keys/model.ts";
import { Draft } from "./drafts/model.ts";
import { DigestResponse, ExtractionsResponse, SenderIntelligenceResponse, SummaryResponse } from "./intel/model.ts";
import { Label } from "./labels/model.ts";
import { MailboxSummary, MailboxView } from "./mailboxes/model.ts";
import { AttachmentInfo, DeliveryEvent, Message, MessageListItem } from "./messages/model.ts";
import { Policy } from "./policy/model.ts";
import { ProtocolMessage, ProtocolResponse } from "./protocol/model.ts";
import { SenderProfile } from "./sender-profiles/model.ts";
import { Suppression } from "./suppressions/model.ts";
import { Thread } from "./threads/model.ts";
import { DeliveryAttempt, WebhookEndpoint } from "./webhooks/model.ts";

/**
 * The resources the API returns, by the name a generated client gives their type. The document
 * refers to them wherever a response holds one (src/http/openapi-document.ts).
 */
export const RESPONSE_MODELS: Readonly<Record<string, TSchema>> = {
  Account,
  AccountBrief,
  Action,
  ApiKey,
  ApiKeyListItem,
  AttachmentInfo,
  DeliveryAttempt,
  DeliveryEvent,
  Digest: DigestResponse,
  Draft,
  Extractions: ExtractionsResponse,
  Label,
  MailboxSummary,
  Mailbox: MailboxView,
  Message,
  MessageListItem,
  Policy,
  ProtocolMessage,
  ProtocolResponse,
  SenderIntelligence: SenderIntelligenceResponse,
  SenderProfile,
  Summary: SummaryResponse,
  Suppression,
  Thread,
  WebhookEndpoint,
};
