/**
 * Generated from Mailroom's OpenAPI document (GET /openapi.json) by
 * clients/typescript/scripts/generate.ts. Do not edit: run the script.
 */

export interface paths {
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics of this node
         * @description Text exposition format 0.0.4: HTTP requests by route template and status with latency histograms, SMTP sessions and messages, actors in memory and their queue depth, outbox rows pending and the lag of the oldest due one, deliveries pending, JetStream consumer backlog, uptime and memory. Admin token only.
         */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health check
         * @description 200 when the database answers; 503 otherwise or while the node drains.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List accounts (ours)
         * @description Newest first.
         */
        get: operations["getV1Accounts"];
        put?: never;
        /** Create an account and its primary mailbox */
        post: operations["postV1Accounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{accountId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an account */
        get: operations["getV1AccountsByAccountId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{accountId}/mailboxes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the mailboxes of an account
         * @description Oldest first; the primary mailbox comes first.
         */
        get: operations["getV1AccountsByAccountIdMailboxes"];
        put?: never;
        /**
         * Create an agent mailbox
         * @description The mailbox gets the default action `send_message`.
         */
        post: operations["postV1AccountsByAccountIdMailboxes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a mailbox */
        get: operations["getV1MailboxesByMailboxId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable a mailbox
         * @description A disabled mailbox refuses sends and inbound mail; reads keep working. Repeating it is harmless.
         */
        post: operations["postV1MailboxesByMailboxIdDisable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable a mailbox
         * @description Sets the status back to `active`.
         */
        post: operations["postV1MailboxesByMailboxIdEnable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who this token is
         * @description For a mailbox API key: the key, its mailbox and account, the mailbox's agent-runtime binding (tier and mode only; null without one) and the number of its latest event (`since` for a stream of what comes next). For the admin token, `principal: admin` and nulls.
         */
        get: operations["getV1Me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a mailbox's API keys
         * @description Never includes secrets.
         */
        get: operations["getV1MailboxesByMailboxIdApiKeys"];
        put?: never;
        /** Issue an API key for a mailbox */
        post: operations["postV1MailboxesByMailboxIdApiKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/api-keys/{keyId}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke an API key
         * @description Takes effect at once on every node. Revoking a revoked key returns it unchanged.
         */
        post: operations["postV1MailboxesByMailboxIdApiKeysByKeyIdRevoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/policy": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get the mailbox policy */
        get: operations["getV1MailboxesByMailboxIdPolicy"];
        /**
         * Change the mailbox policy
         * @description Fields left out keep their value; an empty body changes nothing.
         */
        put: operations["putV1MailboxesByMailboxIdPolicy"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/drafts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List drafts
         * @description Most recently changed first.
         */
        get: operations["getV1MailboxesByMailboxIdDrafts"];
        put?: never;
        /**
         * Create a draft
         * @description Every field is optional; addresses are checked as for sending.
         */
        post: operations["postV1MailboxesByMailboxIdDrafts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/drafts/{draftId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a draft */
        get: operations["getV1DraftsByDraftId"];
        /**
         * Update a draft
         * @description Replaces the fields given and keeps the others; null clears subject or a body.
         */
        put: operations["putV1DraftsByDraftId"];
        post?: never;
        /**
         * Delete a draft
         * @description Returns the deleted draft.
         */
        delete: operations["deleteV1DraftsByDraftId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/labels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List labels
         * @description By name.
         */
        get: operations["getV1MailboxesByMailboxIdLabels"];
        put?: never;
        /**
         * Create a label
         * @description Names are unique per mailbox regardless of case (409 label_exists).
         */
        post: operations["postV1MailboxesByMailboxIdLabels"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/labels/{labelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a label
         * @description Returns the deleted label.
         */
        delete: operations["deleteV1LabelsByLabelId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{accountId}/suppressions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List suppressed addresses
         * @description Newest first.
         */
        get: operations["getV1AccountsByAccountIdSuppressions"];
        put?: never;
        /**
         * Suppress an address
         * @description Sends from any mailbox of the account to this address are refused with 409 address_suppressed. The address is stored lowercase; adding one already listed returns it with 200.
         */
        post: operations["postV1AccountsByAccountIdSuppressions"];
        /**
         * Remove a suppressed address
         * @description Returns the removed entry; 404 when the address is not listed.
         */
        delete: operations["deleteV1AccountsByAccountIdSuppressions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{accountId}/sender-profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List sender profiles
         * @description Most recently seen first. `address` is a case-insensitive substring; `disposition` filters.
         */
        get: operations["getV1AccountsByAccountIdSenderProfiles"];
        put?: never;
        /**
         * Create a sender profile
         * @description Profiles are also made by inbound mail. Creating one for an address that already has a profile sets the given fields on it and answers 200 with it; a new one is 201.
         */
        post: operations["postV1AccountsByAccountIdSenderProfiles"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sender-profiles/{profileId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a sender profile */
        get: operations["getV1SenderProfilesByProfileId"];
        /**
         * Change a sender profile
         * @description Sets the fields given (disposition, notes, display_name); the others keep their value. A new disposition applies to mail processed from then on.
         */
        put: operations["putV1SenderProfilesByProfileId"];
        post?: never;
        /**
         * Delete a sender profile
         * @description Forgets the disposition and notes; the next mail from the address starts a new, neutral profile.
         */
        delete: operations["deleteV1SenderProfilesByProfileId"];
        options?: never;
        head?: never;
        /**
         * Change a sender profile
         * @description Sets the fields given (disposition, notes, display_name); the others keep their value. A new disposition applies to mail processed from then on.
         */
        patch: operations["patchV1SenderProfilesByProfileId"];
        trace?: never;
    };
    "/v1/inbound/email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver an inbound email over HTTP
         * @description Body: the raw RFC 5322 message, Content-Type message/rfc822, kept byte for byte. `to` (repeatable) gives the envelope recipients; without it the To and Cc addresses of this service's domain are used. Every recipient must be deliverable or nothing is stored. Answers once the message is durable; parsing and assessment follow (message.processed).
         */
        post: operations["postV1InboundEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send an email
         * @description Checks, in order: validation (400), suppression list (409 address_suppressed), mailbox disabled (403 mailbox_disabled), policy allow_outbound (403 outbound_disabled), the mailbox's sends per sliding hour (429). The first delivery attempt runs before the answer: status is `sent`, or `queued` while a relay failure is retried, or `failed`; GET …/delivery has the history. Called with an agent runtime's key, the binding's policy mode decides: auto-send sends; draft-first answers 202 with a draft to approve (a reply's draft threads as a reply when sent); observe answers 202 and only logs. Each is in the routing log.
         */
        post: operations["postV1MailboxesByMailboxIdSend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/reply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reply to a message
         * @description Goes to the message's Reply-To or sender (inbound) or its recipients (outbound), in its thread, with In-Reply-To and References. 400 reply_not_supported for a message with no one to answer or an agent protocol message. Checks, in order: validation (400), suppression list (409 address_suppressed), mailbox disabled (403 mailbox_disabled), policy allow_outbound (403 outbound_disabled), the mailbox's sends per sliding hour (429). The first delivery attempt runs before the answer: status is `sent`, or `queued` while a relay failure is retried, or `failed`; GET …/delivery has the history.
         */
        post: operations["postV1MessagesByMessageIdReply"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/drafts/{draftId}/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a draft
         * @description The same checks as send; the draft is deleted in the transaction that queues the message. Checks, in order: validation (400), suppression list (409 address_suppressed), mailbox disabled (403 mailbox_disabled), policy allow_outbound (403 outbound_disabled), the mailbox's sends per sliding hour (429). The first delivery attempt runs before the answer: status is `sent`, or `queued` while a relay failure is retried, or `failed`; GET …/delivery has the history.
         */
        post: operations["postV1DraftsByDraftIdSend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List messages
         * @description Newest first. Filters combine with AND: `query` (words of the subject, each matched as a word prefix, case-insensitive, through the full-text index; text with no letters or digits matches as a substring), `status`, `direction`, `transport`, `triage_label`, `risk_level`, `label` (a label id; an id that is not one of this mailbox's labels matches nothing) and `thread_id`. A value outside a filter's set is 400.
         */
        get: operations["getV1MailboxesByMailboxIdMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a message
         * @description Every field; attachments in the order of the message. Parsed fields are filled once the message is `processed`.
         */
        get: operations["getV1MessagesByMessageId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/raw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the original message
         * @description The message file byte for byte as received (inbound) or as handed to the relay (outbound). For an agent protocol message, the JSON it was sent as (application/json).
         */
        get: operations["getV1MessagesByMessageIdRaw"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/attachments/{attachmentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an attachment
         * @description The attachment's bytes with its original Content-Type (application/octet-stream when the stored type is not a plain type/subtype), always as a download (Content-Disposition: attachment, X-Content-Type-Options: nosniff). 404 when the attachment is not one of this message's.
         */
        get: operations["getV1MessagesByMessageIdAttachmentsByAttachmentId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/delivery": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Delivery history of a message
         * @description Oldest first: queued, then retrying…, then sent or failed. Empty for inbound messages.
         */
        get: operations["getV1MessagesByMessageIdDelivery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive a message
         * @description Sets status `archived` and `archived_at`. Idempotent: archiving an archived message changes nothing.
         */
        post: operations["postV1MessagesByMessageIdArchive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/review": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark a message reviewed
         * @description Review marks a message as seen and handled by a human or an agent: status `reviewed` and `reviewed_at`. The later of archive and review sets the status. Idempotent.
         */
        post: operations["postV1MessagesByMessageIdReview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/labels/{labelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a label to a message
         * @description The label must be one of the message's mailbox's labels (404 otherwise). Applying it again changes nothing. Answers the labels now applied.
         */
        post: operations["postV1MessagesByMessageIdLabelsByLabelId"];
        /**
         * Remove a label from a message
         * @description Removing a label the message does not carry is not an error (200). The label must be one of the mailbox's labels (404 otherwise). Answers the labels now applied.
         */
        delete: operations["deleteV1MessagesByMessageIdLabelsByLabelId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/threads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List threads
         * @description Most recent message first. Filters combine with AND: `query` (words of the subject, each matched as a word prefix, case-insensitive, through the full-text index; text with no letters or digits matches as a substring), `status` (open or archived), `label` (a label id; an id that is not one of this mailbox's labels matches nothing).
         */
        get: operations["getV1MailboxesByMailboxIdThreads"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/threads/{threadId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a thread */
        get: operations["getV1ThreadsByThreadId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/threads/{threadId}/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a thread's messages
         * @description Oldest first, paginated like the message list.
         */
        get: operations["getV1ThreadsByThreadIdMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/threads/{threadId}/archive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Archive a thread
         * @description Sets the thread's status to `archived`; its messages keep theirs. A new inbound message in the thread reopens it. Idempotent.
         */
        post: operations["postV1ThreadsByThreadIdArchive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/threads/{threadId}/reopen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reopen a thread
         * @description Sets the thread's status to `open`. Idempotent.
         */
        post: operations["postV1ThreadsByThreadIdReopen"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/threads/{threadId}/labels/{labelId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Apply a label to a thread
         * @description The label must be one of the thread's mailbox's labels (404 otherwise). Applying it again changes nothing. Answers the labels now applied.
         */
        post: operations["postV1ThreadsByThreadIdLabelsByLabelId"];
        /**
         * Remove a label from a thread
         * @description Removing a label the thread does not carry is not an error (200). The label must be one of the mailbox's labels (404 otherwise). Answers the labels now applied.
         */
        delete: operations["deleteV1ThreadsByThreadIdLabelsByLabelId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search the mailbox
         * @description Full-text search over subject, bodies, addresses and attachment names (PostgreSQL tsvector, GIN index, websearch_to_tsquery). Most relevant first, freshness breaking near ties. Syntax: free words and "quoted phrases" (all must match), `OR` between words, `-` before a word, phrase or operator to exclude it. Operators: `from:` sender address or name contains the text: from:alice@example.com, from:"Jane Doe"; `to:` a recipient address or name contains the text: to:ops@example.com, to:"Ops Team"; `subject:` subject contains the text: subject:invoice, subject:"quarterly report"; `label:` carries the label (by name): label:urgent, label:"follow up"; `has:` has:attachment: the message has at least one attachment; `is:` is:inbound, is:outbound, is:archived, is:reviewed, is:unreviewed or is:processed; `risk:` assessed risk level: risk:low, risk:medium or risk:high; `triage:` triage label: triage:action_required, reply_needed, fyi, newsletter, notification or spam; `before:` received before the start of that UTC day (YYYY-MM-DD or YYYY/MM/DD), or before an ISO timestamp with a zone; `after:` received after that UTC day (YYYY-MM-DD or YYYY/MM/DD), or at or after an ISO timestamp with a zone. A syntax error is 400 validation_error with `details.position` (0-based).
         */
        post: operations["postV1MailboxesByMailboxIdSearch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the message summary
         * @description The cached message summary. When what it was made from has changed since (new messages, new text, new mail from the sender), it is made anew first. 404 until one was generated with POST.
         */
        get: operations["getV1MessagesByMessageIdSummary"];
        put?: never;
        /**
         * Generate the message summary
         * @description Makes the message summary with the configured engine (the OpenAI-compatible one when LLM_BASE_URL is set, falling back to the local one on a timeout or a bad answer; else the local one), stores and returns it. A cached result that is still fresh and came from the configured engine is returned as is unless `force` is true.
         */
        post: operations["postV1MessagesByMessageIdSummary"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/messages/{messageId}/extractions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the message extractions
         * @description The cached message extractions. When what it was made from has changed since (new messages, new text, new mail from the sender), it is made anew first. 404 until one was generated with POST.
         */
        get: operations["getV1MessagesByMessageIdExtractions"];
        put?: never;
        /**
         * Generate the message extractions
         * @description Makes the message extractions with the configured engine (the OpenAI-compatible one when LLM_BASE_URL is set, falling back to the local one on a timeout or a bad answer; else the local one), stores and returns it. A cached result that is still fresh and came from the configured engine is returned as is unless `force` is true.
         */
        post: operations["postV1MessagesByMessageIdExtractions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/threads/{threadId}/digest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the thread digest
         * @description The cached thread digest. When what it was made from has changed since (new messages, new text, new mail from the sender), it is made anew first. 404 until one was generated with POST.
         */
        get: operations["getV1ThreadsByThreadIdDigest"];
        put?: never;
        /**
         * Generate the thread digest
         * @description Makes the thread digest with the configured engine (the OpenAI-compatible one when LLM_BASE_URL is set, falling back to the local one on a timeout or a bad answer; else the local one), stores and returns it. A cached result that is still fresh and came from the configured engine is returned as is unless `force` is true.
         */
        post: operations["postV1ThreadsByThreadIdDigest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sender-profiles/{profileId}/intelligence": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the sender intelligence
         * @description The cached sender intelligence. When what it was made from has changed since (new messages, new text, new mail from the sender), it is made anew first. 404 until one was generated with POST.
         */
        get: operations["getV1SenderProfilesByProfileIdIntelligence"];
        put?: never;
        /**
         * Generate the sender intelligence
         * @description Makes the sender intelligence with the configured engine (the OpenAI-compatible one when LLM_BASE_URL is set, falling back to the local one on a timeout or a bad answer; else the local one), stores and returns it. A cached result that is still fresh and came from the configured engine is returned as is unless `force` is true.
         */
        post: operations["postV1SenderProfilesByProfileIdIntelligence"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Mailbox counts
         * @description Messages by direction, status, transport, triage label and risk level; unreviewed, unprocessed and processing-failed inbound mail; threads open and archived; drafts.
         */
        get: operations["getV1MailboxesByMailboxIdStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Mailbox time series
         * @description Hourly buckets (UTC hours, the current one last and still filling) for the last 24 hours and 7 days: inbound and outbound messages, sends refused by policy (`refused_policy`), suppression (`refused_suppression`) and the rate window (`refused_rate`), webhook deliveries that succeeded and that were given up, and the median processing time of inbound mail. Empty hours are zeros.
         */
        get: operations["getV1MailboxesByMailboxIdMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a mailbox's webhook endpoints
         * @description Oldest first. Never includes secrets.
         */
        get: operations["getV1MailboxesByMailboxIdWebhooks"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description The signing secret is returned only in this response. Takes Idempotency-Key.
         */
        post: operations["postV1MailboxesByMailboxIdWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{endpointId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook endpoint */
        get: operations["getV1WebhooksByEndpointId"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description With its deliveries and their history.
         */
        delete: operations["deleteV1WebhooksByEndpointId"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint
         * @description url, events, enabled; fields left out keep their value. A disabled endpoint gets no new deliveries, and its pending ones fail.
         */
        patch: operations["patchV1WebhooksByEndpointId"];
        trace?: never;
    };
    "/v1/webhooks/{endpointId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Delivery history
         * @description Every attempt, newest first (limit 1-100, default 50).
         */
        get: operations["getV1WebhooksByEndpointIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{endpointId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the signing secret
         * @description The old secret stops signing at once, retries included.
         */
        post: operations["postV1WebhooksByEndpointIdRotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{endpointId}/deliveries/{deliveryId}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay a delivery
         * @description Sends it again now as a new attempt, records it and returns it. A success completes the delivery.
         */
        post: operations["postV1WebhooksByEndpointIdDeliveriesByDeliveryIdReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{endpointId}/replay-failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replay every failed delivery
         * @description Optionally only those created at or after `since`. They go out again with the full retry schedule.
         */
        post: operations["postV1WebhooksByEndpointIdReplayFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Stream the mailbox's events (SSE)
         * @description A Server-Sent Events stream (`text/event-stream`) of the mailbox's events (`message.received`, `message.processed`, `message.sent`, …), for agents that keep a connection open instead of receiving webhooks.
         *
         *     Events are numbered 1, 2, 3… per mailbox in commit order; the number is the SSE `id`. The stream first replays the stored events after the resume point (`Last-Event-ID` header, else `since`, else 0), in order, then stays open and sends new events as they commit. Each message is `id: <n>`, `event: <name>` and one `data:` line holding `{"id":n,"event":name,"created_at":ISO,"payload":{…}}` (the payload is the webhook payload of that event).
         *
         *     A mailbox may have `EVENT_STREAMS_PER_MAILBOX` (100) streams open on one node; one more is 429 `rate_limit_exceeded` with Retry-After.
         *
         *     The stream starts with `retry: 2000`, and sends a `: keep-alive` comment after 15 s without a message. Events are kept at least 7 days; when the resume point is older than what is stored, an `event: gap` message with `data: {"from":a,"to":b}` names the events that can no longer be sent, before the next event. A resume point past the mailbox's latest event is 400. While the service shuts down the stream ends (reconnect with `Last-Event-ID`), and new streams get 503.
         */
        get: operations["getV1MailboxesByMailboxIdEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/actions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List actions
         * @description By name, disabled ones included.
         */
        get: operations["getV1MailboxesByMailboxIdActions"];
        put?: never;
        /**
         * Create an action
         * @description Names are unique per mailbox (409 action_exists). Both schemas are checked as JSON Schema draft 2020-12 when written (400 validation_error with the reason); remote $refs are never fetched. Protocol messages naming the action are validated against `parameter_schema`, responses against `response_schema`.
         */
        post: operations["postV1MailboxesByMailboxIdActions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/actions/{actionName}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an action */
        get: operations["getV1MailboxesByMailboxIdActionsByActionName"];
        /**
         * Change an action
         * @description Fields left out keep their value; `enabled: false` disables it (protocol messages naming it get 400 unknown_action). Both schemas are checked as JSON Schema draft 2020-12 when written (400 validation_error with the reason); remote $refs are never fetched. Protocol messages naming the action are validated against `parameter_schema`, responses against `response_schema`.
         */
        put: operations["putV1MailboxesByMailboxIdActionsByActionName"];
        post?: never;
        /**
         * Delete an action
         * @description Returns the deleted action.
         */
        delete: operations["deleteV1MailboxesByMailboxIdActionsByActionName"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/autopilot": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the autopilot policy
         * @description Until set: observe, no rules.
         */
        get: operations["getV1MailboxesByMailboxIdAutopilot"];
        /**
         * Set the autopilot policy
         * @description Fields left out keep their value; `rules` replaces the whole list. Rules come back with their defaults filled in (ids, names).
         */
        put: operations["putV1MailboxesByMailboxIdAutopilot"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/autopilot/decisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Autopilot decisions
         * @description Newest first: for each processed inbound message while the mailbox had rules, which rules matched and what became of each action.
         */
        get: operations["getV1MailboxesByMailboxIdAutopilotDecisions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/agent-runtime-binding": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the agent-runtime binding
         * @description 404 when the mailbox has none.
         */
        get: operations["getV1MailboxesByMailboxIdAgentRuntimeBinding"];
        put?: never;
        /**
         * Create or update the agent-runtime binding
         * @description Creating needs agentId and runtimeBaseUrl; the others default (permissionTier draft, policyMode draft-first, personaLabel default, enabled true) and the answer is 201 with the runtime's key and signing secret, shown once. Updating changes the fields given (200).
         */
        post: operations["postV1MailboxesByMailboxIdAgentRuntimeBinding"];
        /**
         * Remove the agent-runtime binding
         * @description Revokes the runtime's key at once; returns the removed binding.
         */
        delete: operations["deleteV1MailboxesByMailboxIdAgentRuntimeBinding"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/agent-runtime-bindings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List all agent-runtime bindings
         * @description Newest first.
         */
        get: operations["getV1AdminAgentRuntimeBindings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/admin/agent-runtime-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The routing log
         * @description Newest first (default 50): each message routed or skipped, each delivery attempt's outcome, and each runtime request its policy mode held back.
         */
        get: operations["getV1AdminAgentRuntimeEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/mailboxes/{mailboxId}/callback-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The mailbox's callback signing secret
         * @description Responses to this mailbox's protocol messages arrive at its callback URLs signed with this secret. Returns it (made now if it did not exist); `rotate: true` replaces it.
         */
        post: operations["postV1MailboxesByMailboxIdCallbackSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/agent.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Discovery document (agent.json)
         * @description Served at the mailbox's protocol_host: the mailbox, its enabled actions with their schemas, the endpoints and how to authenticate.
         */
        get: operations["getWellKnownAgentJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/agent-card.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A2A agent card
         * @description The same agent as an A2A Agent Card (v1 fields, with the 0.3 ones for older readers).
         */
        get: operations["getWellKnownAgentCardJson"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.agent/inbox/{messageId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Status of a protocol message
         * @description For the sender and the recipient mailbox only; anyone else gets 404.
         */
        get: operations["getAgentInboxByMessageId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.agent/inbox/{messageId}/responses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Responses to a protocol message
         * @description Oldest first; sender and recipient only.
         */
        get: operations["getAgentInboxByMessageIdResponses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.agent/inbox": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a protocol message
         * @description Authenticated with an API key of the sending mailbox. Checks, in order: the body's shape and a non-blank subject (400 validation_error); the callback URL (400); the recipient takes messages (403 mailbox_disabled); the action exists and is enabled (400 unknown_action); parameters match its schema (400 schema_validation_failed, the validator's errors in details.errors); a message without an action needs a body and no parameters (400).
         */
        post: operations["postAgentInbox"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.agent/inbox/{messageId}/respond": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Respond to a protocol message
         * @description Recipient mailbox only (the sender gets 403, others 404). A body or structured_data is required; structured_data must match the action's response schema (400 schema_validation_failed). With the sender's callback URL the response is POSTed there (delivery_mode callback, signed with x-service-callback-signature); otherwise it waits to be polled (poll). Fires protocol.response.created. An agent runtime in observe mode gets 202 and nothing is sent.
         */
        post: operations["postAgentInboxByMessageIdRespond"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Account: {
            /** Format: uuid */
            id: string;
            slug: string;
            display_name: string;
            /**
             * @description accounts are `active`; other states are reserved for later use
             * @constant
             */
            status: "active";
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
        };
        AccountBrief: {
            /** Format: uuid */
            id: string;
            slug: string;
            display_name: string;
            /**
             * @description accounts are `active`; other states are reserved for later use
             * @constant
             */
            status: "active";
        };
        Action: {
            /** Format: uuid */
            id: string;
            name: string;
            description: string;
            /** @description JSON Schema (draft 2020-12) the protocol message's `parameters` must match; default: any object */
            parameter_schema: {
                [key: string]: unknown;
            };
            /** @description JSON Schema (draft 2020-12) a response's `structured_data` must match; default: any object */
            response_schema: {
                [key: string]: unknown;
            };
            enabled: boolean;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            updated_at: string;
        };
        ApiKey: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @constant */
            scope: "mailbox";
            /** @enum {string} */
            status: "active" | "revoked";
        };
        ApiKeyListItem: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @constant */
            scope: "mailbox";
            /** @enum {string} */
            status: "active" | "revoked";
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            revoked_at: string | null;
        };
        AttachmentInfo: {
            /** Format: uuid */
            id: string;
            filename: string | null;
            mime_type: string;
            size: number;
        };
        DeliveryAttempt: {
            /**
             * Format: uuid
             * @description attempt id
             */
            id: string;
            /**
             * Format: uuid
             * @description the delivery (same webhook-id on every attempt)
             */
            delivery_id: string;
            /** Format: uuid */
            endpoint_id: string;
            /** @description 1 for the first request of the delivery, then 2, 3… (replays included) */
            attempt: number;
            /** @enum {string} */
            trigger: "scheduled" | "replay";
            url: string;
            status_code: number | null;
            /** @description at most 4 KiB */
            response_body: string | null;
            duration_ms: number;
            success: boolean;
            error: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            started_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            finished_at: string;
            /** @description the event the delivery carries (history only; ours) */
            event?: string | null;
            /** @description the JSON body sent, its first 16 KiB */
            request_body?: string | null;
            /** @description pending, succeeded or failed */
            delivery_status?: string | null;
        };
        DeliveryEvent: {
            /** Format: uuid */
            id: string;
            /** @description queued, sent, retrying or failed */
            status: string;
            detail: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
        };
        Digest: {
            /** Format: uuid */
            thread_id: string;
            participants: {
                address: string;
                name: string | null;
                /** @enum {string} */
                role: "self" | "external";
                messages: number;
            }[];
            timeline: {
                /** Format: uuid */
                message_id: string;
                /**
                 * Format: date-time
                 * @description UTC, ISO 8601
                 */
                at: string;
                from: string;
                /** @enum {string} */
                direction: "inbound" | "outbound";
                summary: string;
            }[];
            decisions: {
                text: string;
                /** Format: uuid */
                message_id: string;
            }[];
            open_questions: {
                text: string;
                /** Format: uuid */
                message_id: string;
                asked_by: string;
            }[];
            next_steps: {
                text: string;
                /** Format: uuid */
                message_id: string;
                /** @description YYYY-MM-DD */
                due: string | null;
            }[];
            latest_state: {
                /** @enum {string} */
                status: "open" | "archived";
                /**
                 * Format: date-time
                 * @description UTC, ISO 8601
                 */
                last_message_at: string | null;
                last_from: string | null;
                /** @enum {string|null} */
                awaiting: "us" | "them" | null;
                summary: string;
            };
            /** @description The engine that made the result */
            engine: {
                /** @description `local` or `openai-compatible` */
                name: string;
                version: string;
                model: string | null;
                /** @description why the configured engine's answer was not used (the local engine made this one); null when it was */
                fallback_reason: string | null;
            };
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            generated_at: string;
            /** @description true when read from the cache, false when made by this request */
            cached: boolean;
        };
        Draft: {
            /** Format: uuid */
            id: string;
            to: string[];
            cc: string[];
            bcc: string[];
            subject: string | null;
            text_body: string | null;
            html_body: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            updated_at: string;
        };
        Extractions: {
            /** Format: uuid */
            message_id: string;
            dates: {
                text: string;
                /** @description YYYY-MM-DD */
                date: string;
                /** @description HH:MM */
                time: string | null;
                /** @enum {string} */
                kind: "deadline" | "event" | "date";
            }[];
            amounts: {
                text: string;
                value: number;
                /** @description ISO 4217 */
                currency: string;
            }[];
            people: {
                name: string;
                email: string | null;
            }[];
            organizations: {
                name: string;
            }[];
            /** @description postal addresses */
            addresses: {
                text: string;
            }[];
            phones: {
                text: string;
                e164: string | null;
            }[];
            urls: {
                url: string;
                domain: string;
            }[];
            emails: {
                address: string;
            }[];
            tracking_numbers: {
                value: string;
                carrier: string | null;
            }[];
            invoice_numbers: {
                value: string;
            }[];
            action_items: {
                text: string;
                /** @description YYYY-MM-DD */
                due: string | null;
            }[];
            questions: {
                text: string;
            }[];
            /** @description The engine that made the result */
            engine: {
                /** @description `local` or `openai-compatible` */
                name: string;
                version: string;
                model: string | null;
                /** @description why the configured engine's answer was not used (the local engine made this one); null when it was */
                fallback_reason: string | null;
            };
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            generated_at: string;
            /** @description true when read from the cache, false when made by this request */
            cached: boolean;
        };
        Label: {
            /** Format: uuid */
            id: string;
            name: string;
            color: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
        };
        Mailbox: {
            /** Format: uuid */
            id: string;
            /** Format: email */
            email_address: string;
            protocol_host: string;
            /** @enum {string} */
            kind: "primary" | "agent";
            /** @enum {string} */
            status: "active" | "disabled";
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
        };
        MailboxSummary: {
            /** Format: uuid */
            id: string;
            slug: string;
            /** @enum {string} */
            kind: "primary" | "agent";
            /** Format: email */
            email_address: string;
            protocol_host: string;
            /** @enum {string} */
            status: "active" | "disabled";
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
        };
        Message: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            thread_id: string | null;
            /** @enum {string} */
            transport: "smtp" | "agent-json";
            /** @enum {string} */
            direction: "inbound" | "outbound";
            from_address: string;
            to_address: string;
            subject: string;
            snippet: string;
            /** @description received, processed, queued, sent, failed, archived, reviewed */
            status: string;
            /** @description low, medium or high; null until processed */
            risk_level: string | null;
            /** @description action_required, reply_needed, fyi, newsletter, notification or spam; null until processed and for outbound mail */
            triage_label: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /** @description Ids of the mailbox labels applied to the message, by label name (ours) */
            labels: string[];
            /** Format: uuid */
            mailbox_id: string;
            message_id_header: string | null;
            text_body: string | null;
            html_body: string | null;
            /** @description The new text of the message for an agent: quoted history and signature removed, HTML turned into text when there is no text part. */
            extracted_text: string | null;
            /** @description What extracted_text left out (ours): the reply headers with the quoted lines and history, then the signature, as written; empty when nothing was removed, null when the message was not split (outbound, agent protocol, not processed yet, or stored before this field). */
            quoted_text: string | null;
            headers: {
                key: string;
                value: string;
            }[];
            suspicious_signals: string[];
            attachments: components["schemas"]["AttachmentInfo"][];
            /**
             * Format: date-time
             * @description When the message was last archived (ours); null if never
             */
            archived_at: string | null;
            /**
             * Format: date-time
             * @description When the message was last marked reviewed (ours); null if never
             */
            reviewed_at: string | null;
            /** @description SPF, DKIM and DMARC results of inbound mail (ours): pass, fail, softfail, neutral, none, temperror or permerror; null until processed and for outbound mail */
            authentication: {
                spf: string;
                dkim: string;
                dmarc: string;
            } | null;
        };
        MessageListItem: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            thread_id: string | null;
            /** @enum {string} */
            transport: "smtp" | "agent-json";
            /** @enum {string} */
            direction: "inbound" | "outbound";
            from_address: string;
            to_address: string;
            subject: string;
            snippet: string;
            /** @description received, processed, queued, sent, failed, archived, reviewed */
            status: string;
            /** @description low, medium or high; null until processed */
            risk_level: string | null;
            /** @description action_required, reply_needed, fyi, newsletter, notification or spam; null until processed and for outbound mail */
            triage_label: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /** @description Ids of the mailbox labels applied to the message, by label name (ours) */
            labels: string[];
        };
        Policy: {
            /** @description when false, send and reply are refused with 403 outbound_disabled */
            allow_outbound: boolean;
            /** @description when false, agent protocol auto-replies are not sent */
            allow_auto_reply: boolean;
            /** @description sends allowed per sliding hour (the spec's limits table describes it per hour) */
            max_outbound_per_day: number;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            updated_at: string | null;
        };
        ProtocolMessage: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "received" | "routed" | "responded" | "failed";
            action: string | null;
            /** @description as validated */
            parameters: {
                [key: string]: unknown;
            } | null;
            subject: string;
            body: string | null;
            /** Format: uuid */
            thread_id: string | null;
            conversation_id: string | null;
            /** @enum {string} */
            priority: "low" | "normal" | "high" | "urgent";
            /** @description as given */
            metadata: {
                [key: string]: unknown;
            };
            from: {
                address: string;
                agent: string | null;
                on_behalf_of: string | null;
                callback_url: string | null;
            };
            to: string;
            risk_level: string | null;
            triage_label: string | null;
            error: {
                code: string;
                message: string;
            } | null;
            /** @description the latest response */
            response: {
                /** Format: uuid */
                id: string;
                /** Format: uuid */
                protocol_message_id: string;
                body: string;
                /** @description as given */
                structured_data: {
                    [key: string]: unknown;
                };
                /** @enum {string} */
                delivery_mode: "poll" | "callback";
                /** @enum {string} */
                status: "pending" | "delivered" | "failed";
                /** @enum {string} */
                responder: "agent" | "runtime" | "auto";
                /**
                 * Format: date-time
                 * @description UTC, ISO 8601
                 */
                created_at: string;
                /**
                 * Format: date-time
                 * @description UTC, ISO 8601
                 */
                delivered_at: string | null;
            } | null;
            responses_count: number;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            updated_at: string;
        };
        ProtocolResponse: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            protocol_message_id: string;
            body: string;
            /** @description as given */
            structured_data: {
                [key: string]: unknown;
            };
            /** @enum {string} */
            delivery_mode: "poll" | "callback";
            /** @enum {string} */
            status: "pending" | "delivered" | "failed";
            /** @enum {string} */
            responder: "agent" | "runtime" | "auto";
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            delivered_at: string | null;
        };
        SenderIntelligence: {
            /** Format: uuid */
            profile_id: string;
            address: string;
            display_name: string | null;
            /** @enum {string} */
            disposition: "neutral" | "trusted" | "blocked";
            volume: {
                inbound: number;
                last_7_days: number;
                last_30_days: number;
                /** @description messages the account's mailboxes sent to this address */
                outbound_to: number;
            };
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            first_seen_at: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            last_seen_at: string | null;
            /** @description conversations the sender wrote in */
            threads: number;
            /** @description of those, the ones a mailbox answered after the sender wrote */
            replied_threads: number;
            /** @description replied_threads / threads; null with no threads */
            reply_rate: number | null;
            triage: {
                [key: string]: number;
            };
            risk: {
                [key: string]: number;
            };
            signals: {
                [key: string]: number;
            };
            authentication: {
                spf: {
                    [key: string]: number;
                };
                dkim: {
                    [key: string]: number;
                };
                dmarc: {
                    [key: string]: number;
                };
            };
            assessment: string;
            /** @enum {string} */
            standing: "established" | "new" | "occasional" | "unwanted" | "suspicious";
            /** @description The engine that made the result */
            engine: {
                /** @description `local` or `openai-compatible` */
                name: string;
                version: string;
                model: string | null;
                /** @description why the configured engine's answer was not used (the local engine made this one); null when it was */
                fallback_reason: string | null;
            };
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            generated_at: string;
            /** @description true when read from the cache, false when made by this request */
            cached: boolean;
        };
        SenderProfile: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            account_id: string;
            /** @description lowercase */
            address: string;
            display_name: string | null;
            /** @enum {string} */
            disposition: "neutral" | "trusted" | "blocked";
            notes: string;
            /** @description inbound messages seen from the address, over the account's mailboxes */
            message_count: number;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            first_seen_at: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            last_seen_at: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            updated_at: string;
        };
        Summary: {
            /** Format: uuid */
            message_id: string;
            summary: string;
            key_points: string[];
            /** @description The engine that made the result */
            engine: {
                /** @description `local` or `openai-compatible` */
                name: string;
                version: string;
                model: string | null;
                /** @description why the configured engine's answer was not used (the local engine made this one); null when it was */
                fallback_reason: string | null;
            };
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            generated_at: string;
            /** @description true when read from the cache, false when made by this request */
            cached: boolean;
        };
        Suppression: {
            /** Format: uuid */
            id: string;
            /** @description lowercase */
            address: string;
            reason: string | null;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
        };
        Thread: {
            /** Format: uuid */
            id: string;
            /** @description The subject of the thread's first message */
            subject: string;
            /** @enum {string} */
            status: "open" | "archived";
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            last_message_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /** @description Messages in the thread (ours) */
            message_count: number;
            /** @description Ids of the mailbox labels applied to the thread, by label name (ours) */
            labels: string[];
        };
        WebhookEndpoint: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            mailbox_id: string;
            url: string;
            events: string[];
            /** @enum {string} */
            status: "active" | "degraded";
            enabled: boolean;
            /** @description failed attempts since the last success; 5 or more is `degraded` */
            consecutive_failures: number;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            created_at: string;
            /**
             * Format: date-time
             * @description UTC, ISO 8601
             */
            updated_at: string;
        };
        /**
         * @description The error envelope of every failed request.
         * @example {
         *       "error": {
         *         "code": "not_found",
         *         "message": "mailbox 6f1c2f9e-7f4a-4d53-9a49-2f1f4c1d8e01 was not found",
         *         "details": {
         *           "id": "6f1c2f9e-7f4a-4d53-9a49-2f1f4c1d8e01"
         *         }
         *       }
         *     }
         */
        Error: {
            error: {
                /** @description stable machine-readable code; each response lists the codes it can carry */
                code: string;
                /** @description for people; may change */
                message: string;
                /** @description code-specific fields (`fields` for validation errors, `request_id` for internal errors, …) */
                details: {
                    [key: string]: unknown;
                };
            };
        };
    };
    responses: {
        /**
         * @description Bad request. `error.code` is one of:
         *     - `invalid_json`: the body is not valid JSON (or not UTF-8)
         *     - `invalid_reply_token`: a reply alias is unknown or belongs to another mailbox
         *     - `validation_error`: the request failed validation; `details.fields` lists `{path, message}`
         */
        "Error400.invalid_json.invalid_reply_token.validation_error": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "invalid_json" | "invalid_reply_token" | "validation_error";
                    };
                };
            };
        };
        /**
         * @description Bad request. `error.code` is one of:
         *     - `invalid_json`: the body is not valid JSON (or not UTF-8)
         *     - `reply_not_supported`: the message cannot be replied to by email
         *     - `validation_error`: the request failed validation; `details.fields` lists `{path, message}`
         */
        "Error400.invalid_json.reply_not_supported.validation_error": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "invalid_json" | "reply_not_supported" | "validation_error";
                    };
                };
            };
        };
        /**
         * @description Bad request. `error.code` is one of:
         *     - `invalid_json`: the body is not valid JSON (or not UTF-8)
         *     - `schema_validation_failed`: protocol parameters or response data do not match the action's JSON Schema; `details.errors` lists them
         *     - `unknown_action`: the action does not exist or is disabled
         *     - `validation_error`: the request failed validation; `details.fields` lists `{path, message}`
         */
        "Error400.invalid_json.schema_validation_failed.unknown_action.validation_error": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "invalid_json" | "schema_validation_failed" | "unknown_action" | "validation_error";
                    };
                };
            };
        };
        /**
         * @description Bad request. `error.code` is one of:
         *     - `invalid_json`: the body is not valid JSON (or not UTF-8)
         *     - `schema_validation_failed`: protocol parameters or response data do not match the action's JSON Schema; `details.errors` lists them
         *     - `validation_error`: the request failed validation; `details.fields` lists `{path, message}`
         */
        "Error400.invalid_json.schema_validation_failed.validation_error": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "invalid_json" | "schema_validation_failed" | "validation_error";
                    };
                };
            };
        };
        /**
         * @description Bad request. `error.code` is one of:
         *     - `invalid_json`: the body is not valid JSON (or not UTF-8)
         *     - `validation_error`: the request failed validation; `details.fields` lists `{path, message}`
         */
        "Error400.invalid_json.validation_error": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "invalid_json" | "validation_error";
                    };
                };
            };
        };
        /**
         * @description Bad request. `error.code` is one of:
         *     - `validation_error`: the request failed validation; `details.fields` lists `{path, message}`
         */
        "Error400.validation_error": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "validation_error";
                    };
                };
            };
        };
        /**
         * @description Unauthenticated. `error.code` is one of:
         *     - `invalid_authorization`: the Authorization header is not `Bearer <token>` or the key is malformed
         *     - `invalid_token`: the token matches no admin token or live API key
         *     - `missing_authorization`: no Authorization header
         */
        "Error401.invalid_authorization.invalid_token.missing_authorization": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "invalid_authorization" | "invalid_token" | "missing_authorization";
                    };
                };
            };
        };
        /**
         * @description Forbidden. `error.code` is one of:
         *     - `approval_required`: an agent runtime in draft-first mode may not send a draft
         *     - `forbidden`: valid credentials, not allowed here (admin route, another mailbox, a runtime tier)
         *     - `mailbox_disabled`: the mailbox is disabled
         *     - `outbound_disabled`: the mailbox policy does not allow sending (allow_outbound is false)
         */
        "Error403.approval_required.forbidden.mailbox_disabled.outbound_disabled": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "approval_required" | "forbidden" | "mailbox_disabled" | "outbound_disabled";
                    };
                };
            };
        };
        /**
         * @description Forbidden. `error.code` is one of:
         *     - `forbidden`: valid credentials, not allowed here (admin route, another mailbox, a runtime tier)
         */
        "Error403.forbidden": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "forbidden";
                    };
                };
            };
        };
        /**
         * @description Forbidden. `error.code` is one of:
         *     - `forbidden`: valid credentials, not allowed here (admin route, another mailbox, a runtime tier)
         *     - `mailbox_disabled`: the mailbox is disabled
         */
        "Error403.forbidden.mailbox_disabled": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "forbidden" | "mailbox_disabled";
                    };
                };
            };
        };
        /**
         * @description Forbidden. `error.code` is one of:
         *     - `forbidden`: valid credentials, not allowed here (admin route, another mailbox, a runtime tier)
         *     - `mailbox_disabled`: the mailbox is disabled
         *     - `outbound_disabled`: the mailbox policy does not allow sending (allow_outbound is false)
         */
        "Error403.forbidden.mailbox_disabled.outbound_disabled": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "forbidden" | "mailbox_disabled" | "outbound_disabled";
                    };
                };
            };
        };
        /**
         * @description Not found. `error.code` is one of:
         *     - `not_found`: the resource does not exist
         */
        "Error404.not_found": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "not_found";
                    };
                };
            };
        };
        /**
         * @description Conflict. `error.code` is one of:
         *     - `action_exists`: the mailbox already has an action of that name
         *     - `idempotency_key_in_use`: a request with this Idempotency-Key is still running; see Retry-After
         *     - `idempotency_key_reused`: the Idempotency-Key was used with a different request
         */
        "Error409.action_exists.idempotency_key_in_use.idempotency_key_reused": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "action_exists" | "idempotency_key_in_use" | "idempotency_key_reused";
                    };
                };
            };
        };
        /**
         * @description Conflict. `error.code` is one of:
         *     - `address_suppressed`: a recipient is on the account's suppression list
         *     - `idempotency_key_in_use`: a request with this Idempotency-Key is still running; see Retry-After
         *     - `idempotency_key_reused`: the Idempotency-Key was used with a different request
         */
        "Error409.address_suppressed.idempotency_key_in_use.idempotency_key_reused": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "address_suppressed" | "idempotency_key_in_use" | "idempotency_key_reused";
                    };
                };
            };
        };
        /**
         * @description Conflict. `error.code` is one of:
         *     - `idempotency_key_in_use`: a request with this Idempotency-Key is still running; see Retry-After
         *     - `idempotency_key_reused`: the Idempotency-Key was used with a different request
         */
        "Error409.idempotency_key_in_use.idempotency_key_reused": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "idempotency_key_in_use" | "idempotency_key_reused";
                    };
                };
            };
        };
        /**
         * @description Conflict. `error.code` is one of:
         *     - `idempotency_key_in_use`: a request with this Idempotency-Key is still running; see Retry-After
         *     - `idempotency_key_reused`: the Idempotency-Key was used with a different request
         *     - `label_exists`: the mailbox already has a label of that name
         */
        "Error409.idempotency_key_in_use.idempotency_key_reused.label_exists": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "idempotency_key_in_use" | "idempotency_key_reused" | "label_exists";
                    };
                };
            };
        };
        /**
         * @description Conflict. `error.code` is one of:
         *     - `idempotency_key_in_use`: a request with this Idempotency-Key is still running; see Retry-After
         *     - `idempotency_key_reused`: the Idempotency-Key was used with a different request
         *     - `slug_taken`: the slug is already in use
         */
        "Error409.idempotency_key_in_use.idempotency_key_reused.slug_taken": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "idempotency_key_in_use" | "idempotency_key_reused" | "slug_taken";
                    };
                };
            };
        };
        /**
         * @description Conflict. `error.code` is one of:
         *     - `idempotency_key_in_use`: a request with this Idempotency-Key is still running; see Retry-After
         *     - `idempotency_key_reused`: the Idempotency-Key was used with a different request
         *     - `webhook_endpoint_limit`: the mailbox has as many webhook endpoints as it may
         */
        "Error409.idempotency_key_in_use.idempotency_key_reused.webhook_endpoint_limit": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "idempotency_key_in_use" | "idempotency_key_reused" | "webhook_endpoint_limit";
                    };
                };
            };
        };
        /**
         * @description Gone. `error.code` is one of:
         *     - `expired_reply_token`: the reply alias has expired
         */
        "Error410.expired_reply_token": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "expired_reply_token";
                    };
                };
            };
        };
        /**
         * @description Payload too large. `error.code` is one of:
         *     - `payload_too_large`: the body is over its limit; `details.limit` gives it
         */
        "Error413.payload_too_large": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "payload_too_large";
                    };
                };
            };
        };
        /**
         * @description Unsupported media type. `error.code` is one of:
         *     - `unsupported_media_type`: the body's Content-Type is not one the operation takes
         */
        "Error415.unsupported_media_type": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "unsupported_media_type";
                    };
                };
            };
        };
        /**
         * @description Too many requests. `error.code` is one of:
         *     - `rate_limit_exceeded`: a rate limit is used up (the API key's calls, or the mailbox's sends); see Retry-After
         */
        "Error429.rate_limit_exceeded": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "rate_limit_exceeded";
                    };
                };
            };
        };
        /**
         * @description Internal server error. `error.code` is one of:
         *     - `internal_error`: unexpected server fault, logged with `details.request_id`
         */
        "Error500.internal_error": {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "internal_error";
                    };
                };
            };
        };
        /**
         * @description Service unavailable. `error.code` is one of:
         *     - `service_unavailable`: nothing was applied (a busy mailbox, a stopping node, an overloaded worker); retry after Retry-After
         */
        "Error503.service_unavailable": {
            headers: {
                /** @description Seconds to wait before retrying (with the codes that say so). */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] & {
                    error: {
                        /** @enum {string} */
                        code: "service_unavailable";
                    };
                };
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "unavailable";
                        node_id: string;
                        mode: {
                            /** @enum {string} */
                            database: "postgres" | "pglite";
                            /** @enum {string} */
                            jobs: "nats" | "in-process";
                        };
                        checks: {
                            /** @enum {string} */
                            database: "ok" | "failed";
                        };
                        uptime_seconds: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            500: components["responses"]["Error500.internal_error"];
            /** @description Response for status 503 */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "ok" | "unavailable";
                        node_id: string;
                        mode: {
                            /** @enum {string} */
                            database: "postgres" | "pglite";
                            /** @enum {string} */
                            jobs: "nats" | "in-process";
                        };
                        checks: {
                            /** @enum {string} */
                            database: "ok" | "failed";
                        };
                        uptime_seconds: number;
                    };
                };
            };
        };
    };
    getV1Accounts: {
        parameters: {
            query?: {
                /** @description Page number, from 1. */
                page?: number;
                /** @description At most this many items. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Account"][];
                        page: number;
                        limit: number;
                        total: number;
                        total_pages: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1Accounts: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "slug": "acme",
                 *       "displayName": "Acme Corp"
                 *     }
                 */
                "application/json": {
                    /** @description lowercase letters, digits and hyphens */
                    slug: string;
                    displayName: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account: components["schemas"]["Account"];
                        primary_mailbox: components["schemas"]["MailboxSummary"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused.slug_taken"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1AccountsByAccountId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account: components["schemas"]["Account"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1AccountsByAccountIdMailboxes: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        account: components["schemas"]["AccountBrief"];
                        mailboxes: components["schemas"]["MailboxSummary"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1AccountsByAccountIdMailboxes: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "slug": "support"
                 *     }
                 */
                "application/json": {
                    /** @description lowercase letters, digits and hyphens; not `main` or `primary` */
                    slug: string;
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        mailbox: components["schemas"]["MailboxSummary"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused.slug_taken"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        mailbox: components["schemas"]["Mailbox"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdDisable: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        mailbox: {
                            /** Format: uuid */
                            id: string;
                            /** @enum {string} */
                            status: "active" | "disabled";
                        };
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdEnable: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        mailbox: {
                            /** Format: uuid */
                            id: string;
                            /** @enum {string} */
                            status: "active" | "disabled";
                        };
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1Me: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        principal: "admin" | "key";
                        key: {
                            /** Format: uuid */
                            id: string;
                            name: string;
                            /** @enum {string} */
                            scope: "mailbox" | "runtime";
                        } | null;
                        mailbox: {
                            /** Format: uuid */
                            id: string;
                            /** Format: email */
                            email_address: string;
                            protocol_host: string;
                            /** @enum {string} */
                            kind: "primary" | "agent";
                            /** @enum {string} */
                            status: "active" | "disabled";
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            created_at: string;
                        } | null;
                        /**
                         * Format: uuid
                         * @description the account the key's mailbox belongs to
                         */
                        account_id: string | null;
                        latest_event_id: number | null;
                        /** @description the mailbox's agent-runtime binding, when it has one */
                        binding: {
                            agent_id: string;
                            /** @enum {string} */
                            permission_tier: "read-only" | "draft" | "send" | "admin-lite" | "admin";
                            /** @enum {string} */
                            policy_mode: "draft-first" | "auto-send" | "observe";
                            persona_label: string;
                            enabled: boolean;
                        } | null;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ApiKeyListItem"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdApiKeys: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "support agent",
                 *       "scope": "mailbox"
                 *     }
                 */
                "application/json": {
                    name: string;
                    /**
                     * @description must be `mailbox`: a key is valid for exactly one mailbox
                     * @constant
                     */
                    scope: "mailbox";
                } & {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        api_key: components["schemas"]["ApiKey"];
                        /** @description svc_{keyId}.{secret}; shown only this once */
                        token: string;
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdApiKeysByKeyIdRevoke: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
                /** @description API key id. */
                keyId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        api_key: components["schemas"]["ApiKey"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdPolicy: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        policy: components["schemas"]["Policy"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    putV1MailboxesByMailboxIdPolicy: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "allow_outbound": true,
                 *       "allow_auto_reply": false,
                 *       "max_outbound_per_day": 200
                 *     }
                 */
                "application/json": {
                    allow_outbound?: boolean;
                    allow_auto_reply?: boolean;
                    max_outbound_per_day?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        policy: components["schemas"]["Policy"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdDrafts: {
        parameters: {
            query?: {
                /** @description Page number, from 1. */
                page?: number;
                /** @description At most this many items. */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Draft"][];
                        page: number;
                        limit: number;
                        total: number;
                        total_pages: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdDrafts: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "to": [
                 *         "jane@example.com"
                 *       ],
                 *       "subject": "Your order #4417",
                 *       "textBody": "Hello Jane,\n\nYour order has shipped."
                 *     }
                 */
                "application/json": {
                    to?: string[];
                    cc?: string[];
                    bcc?: string[];
                    subject?: string | null;
                    textBody?: string | null;
                    htmlBody?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        draft: components["schemas"]["Draft"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1DraftsByDraftId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Draft id. */
                draftId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        draft: components["schemas"]["Draft"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    putV1DraftsByDraftId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Draft id. */
                draftId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "subject": "Your order #4417 has shipped",
                 *       "cc": [
                 *         "orders@example.com"
                 *       ]
                 *     }
                 */
                "application/json": {
                    to?: string[];
                    cc?: string[];
                    bcc?: string[];
                    subject?: string | null;
                    textBody?: string | null;
                    htmlBody?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        draft: components["schemas"]["Draft"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1DraftsByDraftId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Draft id. */
                draftId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        draft: components["schemas"]["Draft"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdLabels: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Label"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdLabels: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Invoices",
                 *       "color": "#1e88e5"
                 *     }
                 */
                "application/json": {
                    /** @description 1 to 64 characters once trimmed */
                    name: string;
                    color?: string | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        label: components["schemas"]["Label"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused.label_exists"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1LabelsByLabelId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Label id. */
                labelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        label: components["schemas"]["Label"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1AccountsByAccountIdSuppressions: {
        parameters: {
            query?: {
                /** @description Page number, from 1. */
                page?: number;
                /** @description At most this many items. */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Suppression"][];
                        page: number;
                        limit: number;
                        total: number;
                        total_pages: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1AccountsByAccountIdSuppressions: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "bounced@example.com",
                 *       "reason": "hard bounce"
                 *     }
                 */
                "application/json": {
                    address: string;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        suppression: components["schemas"]["Suppression"];
                    };
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        suppression: components["schemas"]["Suppression"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1AccountsByAccountIdSuppressions: {
        parameters: {
            query: {
                /** @description The address to remove, any case. */
                address: string;
            };
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        suppression: components["schemas"]["Suppression"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1AccountsByAccountIdSenderProfiles: {
        parameters: {
            query?: {
                /** @description Page number, from 1. */
                page?: number;
                /** @description At most this many items. */
                limit?: number;
                /** @description Case-insensitive substring of the address. */
                address?: string;
                /** @description Only items with this disposition. */
                disposition?: "neutral" | "trusted" | "blocked";
            };
            header?: never;
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["SenderProfile"][];
                        page: number;
                        limit: number;
                        total: number;
                        total_pages: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1AccountsByAccountIdSenderProfiles: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Account id. */
                accountId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "address": "billing@vendor.example",
                 *       "disposition": "trusted",
                 *       "notes": "our payment processor",
                 *       "display_name": "Vendor Billing"
                 *     }
                 */
                "application/json": {
                    address: string;
                    /** @description neutral; trusted (risk one level lower when the sender is authenticated); blocked (triaged spam) */
                    disposition?: "neutral" | "trusted" | "blocked";
                    notes?: string;
                    display_name?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sender_profile: components["schemas"]["SenderProfile"];
                    };
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sender_profile: components["schemas"]["SenderProfile"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1SenderProfilesByProfileId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Sender profile id. */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sender_profile: components["schemas"]["SenderProfile"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    putV1SenderProfilesByProfileId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Sender profile id. */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "disposition": "blocked",
                 *       "notes": "sends phishing",
                 *       "display_name": null
                 *     }
                 */
                "application/json": {
                    /** @description neutral; trusted (risk one level lower when the sender is authenticated); blocked (triaged spam) */
                    disposition?: "neutral" | "trusted" | "blocked";
                    notes?: string;
                    display_name?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sender_profile: components["schemas"]["SenderProfile"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1SenderProfilesByProfileId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Sender profile id. */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sender_profile: components["schemas"]["SenderProfile"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    patchV1SenderProfilesByProfileId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Sender profile id. */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "notes": "confirmed by the finance team"
                 *     }
                 */
                "application/json": {
                    /** @description neutral; trusted (risk one level lower when the sender is authenticated); blocked (triaged spam) */
                    disposition?: "neutral" | "trusted" | "blocked";
                    notes?: string;
                    display_name?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sender_profile: components["schemas"]["SenderProfile"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1InboundEmail: {
        parameters: {
            query?: {
                /** @description Only items with this to. */
                to?: string[] | string;
            };
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example From: Jane Doe <jane@example.com>
                 *     To: support@acme.mail.localhost
                 *     Subject: Where is my order?
                 *     Message-ID: <4417@example.com>
                 *     Date: Thu, 15 Jan 2026 10:00:00 +0000
                 *
                 *     Hello, order 4417 has not arrived.
                 */
                "message/rfc822": string;
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message_ids: string[];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.invalid_reply_token.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden.mailbox_disabled"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            410: components["responses"]["Error410.expired_reply_token"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdSend: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "to": [
                 *         "jane@example.com"
                 *       ],
                 *       "cc": [],
                 *       "subject": "Welcome",
                 *       "textBody": "Hello Jane, welcome aboard.",
                 *       "htmlBody": "<p>Hello Jane, welcome aboard.</p>"
                 *     }
                 */
                "application/json": {
                    to: string[];
                    cc?: string[];
                    bcc?: string[];
                    subject: string;
                    textBody?: string;
                    htmlBody?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: components["schemas"]["Message"];
                        provider_message_id: string | null;
                        /** @description The reply alias {localPart}+reply-{token}@{domain} set as Reply-To */
                        reply_to: string;
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        disposition: "draft" | "observed";
                        draft?: components["schemas"]["Draft"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden.mailbox_disabled.outbound_disabled"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.address_suppressed.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MessagesByMessageIdReply: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "textBody": "Thanks, that works for us."
                 *     }
                 */
                "application/json": {
                    textBody?: string;
                    htmlBody?: string;
                    cc?: string[];
                    bcc?: string[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: components["schemas"]["Message"];
                        provider_message_id: string | null;
                        /** @description The reply alias {localPart}+reply-{token}@{domain} set as Reply-To */
                        reply_to: string;
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        disposition: "draft" | "observed";
                        draft?: components["schemas"]["Draft"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.reply_not_supported.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden.mailbox_disabled.outbound_disabled"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.address_suppressed.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1DraftsByDraftIdSend: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Draft id. */
                draftId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: components["schemas"]["Message"];
                        provider_message_id: string | null;
                        /** @description The reply alias {localPart}+reply-{token}@{domain} set as Reply-To */
                        reply_to: string;
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        disposition: "draft" | "observed";
                        draft?: components["schemas"]["Draft"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.approval_required.forbidden.mailbox_disabled.outbound_disabled"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.address_suppressed.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdMessages: {
        parameters: {
            query?: {
                /** @description Page number, from 1. */
                page?: number;
                /** @description At most this many items. */
                limit?: number;
                /** @description Words of the subject, each matched as a word prefix (full-text index). */
                query?: string;
                /** @description Only items with this status. */
                status?: "received" | "processed" | "queued" | "sent" | "failed" | "archived" | "reviewed";
                /** @description Only items with this direction. */
                direction?: "inbound" | "outbound";
                /** @description Only items with this transport. */
                transport?: "smtp" | "agent-json";
                /** @description Only items with this triage label. */
                triage_label?: "action_required" | "reply_needed" | "fyi" | "newsletter" | "notification" | "spam";
                /** @description Only items with this risk level. */
                risk_level?: "low" | "medium" | "high";
                /** @description Only messages carrying this label (a label id of the mailbox; another id matches nothing). */
                label?: string;
                /** @description Only messages of this thread. */
                thread_id?: string;
            };
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["MessageListItem"][];
                        page: number;
                        limit: number;
                        total: number;
                        total_pages: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MessagesByMessageId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: components["schemas"]["Message"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MessagesByMessageIdRaw: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The raw RFC 5322 message */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "message/rfc822": string;
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MessagesByMessageIdAttachmentsByAttachmentId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Message id. */
                messageId: string;
                /** @description Attachment id. */
                attachmentId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attachment's bytes, with its own Content-Type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MessagesByMessageIdDelivery: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        events: components["schemas"]["DeliveryEvent"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MessagesByMessageIdArchive: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        message_id: string;
                        /** @constant */
                        status: "archived";
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MessagesByMessageIdReview: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        message_id: string;
                        /** @constant */
                        status: "reviewed";
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MessagesByMessageIdLabelsByLabelId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Message id. */
                messageId: string;
                /** @description Label id. */
                labelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        message_id: string;
                        /** @description Ids of the labels now applied, by label name */
                        labels: string[];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1MessagesByMessageIdLabelsByLabelId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Message id. */
                messageId: string;
                /** @description Label id. */
                labelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        message_id: string;
                        /** @description Ids of the labels now applied, by label name */
                        labels: string[];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdThreads: {
        parameters: {
            query?: {
                /** @description Page number, from 1. */
                page?: number;
                /** @description At most this many items. */
                limit?: number;
                /** @description Words of the thread subject, each matched as a word prefix (full-text index). */
                query?: string;
                /** @description Only items with this status. */
                status?: "open" | "archived";
                /** @description Only threads carrying this label (a label id of the mailbox; another id matches nothing). */
                label?: string;
            };
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Thread"][];
                        page: number;
                        limit: number;
                        total: number;
                        total_pages: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1ThreadsByThreadId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Thread id. */
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        thread: components["schemas"]["Thread"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1ThreadsByThreadIdMessages: {
        parameters: {
            query?: {
                /** @description Page number, from 1. */
                page?: number;
                /** @description At most this many items. */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Thread id. */
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["MessageListItem"][];
                        page: number;
                        limit: number;
                        total: number;
                        total_pages: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1ThreadsByThreadIdArchive: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Thread id. */
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        thread_id: string;
                        /** @constant */
                        status: "archived";
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1ThreadsByThreadIdReopen: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Thread id. */
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        thread_id: string;
                        /** @constant */
                        status: "open";
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1ThreadsByThreadIdLabelsByLabelId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Thread id. */
                threadId: string;
                /** @description Label id. */
                labelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        thread_id: string;
                        /** @description Ids of the labels now applied, by label name */
                        labels: string[];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1ThreadsByThreadIdLabelsByLabelId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Thread id. */
                threadId: string;
                /** @description Label id. */
                labelId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        thread_id: string;
                        /** @description Ids of the labels now applied, by label name */
                        labels: string[];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdSearch: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": "invoice from:billing@vendor.example -draft",
                 *       "limit": 20
                 *     }
                 */
                "application/json": {
                    /** @description Free words, "phrases", -negation, OR, and operators (see the README) */
                    query: string;
                    /**
                     * @description Maximum results (default 20)
                     * @default 20
                     */
                    limit?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** Format: uuid */
                            id: string;
                            /** Format: uuid */
                            thread_id: string | null;
                            /** @enum {string} */
                            transport: "smtp" | "agent-json";
                            /** @enum {string} */
                            direction: "inbound" | "outbound";
                            from_address: string;
                            to_address: string;
                            subject: string;
                            snippet: string;
                            /** @description received, processed, queued, sent, failed, archived, reviewed */
                            status: string;
                            /** @description low, medium or high; null until processed */
                            risk_level: string | null;
                            /** @description action_required, reply_needed, fyi, newsletter, notification or spam; null until processed and for outbound mail */
                            triage_label: string | null;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            created_at: string;
                            /** @description Ids of the mailbox labels applied to the message, by label name (ours) */
                            labels: string[];
                            /** @description Text relevance (0 to 1, subject above addresses and attachment names above body) weighed by freshness; 0 when the query has only operators */
                            rank: number;
                            highlight: {
                                /** @description The subject, HTML-escaped, matched words in <mark> */
                                subject: string;
                                /** @description Up to two fragments of the text around the matches, HTML-escaped, matched words in <mark> */
                                text: string;
                            };
                        }[];
                        limit: number;
                        /** @description More messages match than `limit` */
                        has_more: boolean;
                        /** @description How the query was read */
                        query: {
                            text: string;
                            terms: string[];
                            filters: {
                                field: string;
                                value: string;
                                negated: boolean;
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MessagesByMessageIdSummary: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Summary"];
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MessagesByMessageIdSummary: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "force": false
                 *     }
                 */
                "application/json": {
                    /** @description make a new result even when the cached one is fresh and was made by the configured engine */
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Summary"];
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MessagesByMessageIdExtractions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Extractions"];
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MessagesByMessageIdExtractions: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Message id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "force": true
                 *     }
                 */
                "application/json": {
                    /** @description make a new result even when the cached one is fresh and was made by the configured engine */
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Extractions"];
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1ThreadsByThreadIdDigest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Thread id. */
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Digest"];
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1ThreadsByThreadIdDigest: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Thread id. */
                threadId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "force": false
                 *     }
                 */
                "application/json": {
                    /** @description make a new result even when the cached one is fresh and was made by the configured engine */
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Digest"];
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1SenderProfilesByProfileIdIntelligence: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Sender profile id. */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SenderIntelligence"];
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1SenderProfilesByProfileIdIntelligence: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Sender profile id. */
                profileId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "force": false
                 *     }
                 */
                "application/json": {
                    /** @description make a new result even when the cached one is fresh and was made by the configured engine */
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SenderIntelligence"];
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdStats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        mailbox_id: string;
                        /**
                         * Format: date-time
                         * @description UTC, ISO 8601
                         */
                        generated_at: string;
                        messages: {
                            total: number;
                            by_direction: {
                                [key: string]: number;
                            };
                            by_status: {
                                [key: string]: number;
                            };
                            by_transport: {
                                [key: string]: number;
                            };
                            by_triage_label: {
                                [key: string]: number;
                            };
                            by_risk_level: {
                                [key: string]: number;
                            };
                            /** @description inbound, not reviewed and not archived */
                            unreviewed: number;
                            /** @description inbound, not yet parsed and assessed */
                            unprocessed: number;
                            /** @description inbound whose processing ended failed (signal processing_failed) */
                            processing_failed: number;
                        };
                        threads: {
                            total: number;
                            open: number;
                            archived: number;
                        };
                        drafts: number;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        mailbox_id: string;
                        /**
                         * Format: date-time
                         * @description UTC, ISO 8601
                         */
                        generated_at: string;
                        windows: {
                            "24h": {
                                /** @constant */
                                bucket_seconds: 3600;
                                /**
                                 * Format: date-time
                                 * @description UTC, ISO 8601
                                 */
                                from: string;
                                /**
                                 * Format: date-time
                                 * @description UTC, ISO 8601
                                 */
                                to: string;
                                totals: {
                                    inbound: number;
                                    outbound: number;
                                    refused_policy: number;
                                    refused_suppression: number;
                                    refused_rate: number;
                                    webhook_deliveries: number;
                                    webhook_failures: number;
                                    /** @description median milliseconds from arrival to processed; null with no processed inbound mail */
                                    processing_ms_p50: number | null;
                                };
                                series: {
                                    /**
                                     * Format: date-time
                                     * @description UTC, ISO 8601
                                     */
                                    hour: string;
                                    inbound: number;
                                    outbound: number;
                                    refused_policy: number;
                                    refused_suppression: number;
                                    refused_rate: number;
                                    webhook_deliveries: number;
                                    webhook_failures: number;
                                    /** @description median milliseconds from arrival to processed; null with no processed inbound mail */
                                    processing_ms_p50: number | null;
                                }[];
                            };
                            "7d": {
                                /** @constant */
                                bucket_seconds: 3600;
                                /**
                                 * Format: date-time
                                 * @description UTC, ISO 8601
                                 */
                                from: string;
                                /**
                                 * Format: date-time
                                 * @description UTC, ISO 8601
                                 */
                                to: string;
                                totals: {
                                    inbound: number;
                                    outbound: number;
                                    refused_policy: number;
                                    refused_suppression: number;
                                    refused_rate: number;
                                    webhook_deliveries: number;
                                    webhook_failures: number;
                                    /** @description median milliseconds from arrival to processed; null with no processed inbound mail */
                                    processing_ms_p50: number | null;
                                };
                                series: {
                                    /**
                                     * Format: date-time
                                     * @description UTC, ISO 8601
                                     */
                                    hour: string;
                                    inbound: number;
                                    outbound: number;
                                    refused_policy: number;
                                    refused_suppression: number;
                                    refused_rate: number;
                                    webhook_deliveries: number;
                                    webhook_failures: number;
                                    /** @description median milliseconds from arrival to processed; null with no processed inbound mail */
                                    processing_ms_p50: number | null;
                                }[];
                            };
                        };
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["WebhookEndpoint"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdWebhooks: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/mailroom",
                 *       "events": [
                 *         "message.received",
                 *         "message.processed"
                 *       ]
                 *     }
                 */
                "application/json": {
                    /** @description http(s) URL; private, loopback and link-local targets are refused unless ALLOW_PRIVATE_WEBHOOK_TARGETS */
                    url: string;
                    events: string[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["WebhookEndpoint"];
                        /** @description hex, 256 bits: the HMAC key of x-service-signature (shown only now) */
                        signing_secret: string;
                        /** @description the same key in the whsec_ form that Standard Webhooks libraries take */
                        standard_webhooks_secret: string;
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused.webhook_endpoint_limit"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1WebhooksByEndpointId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Webhook endpoint id. */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["WebhookEndpoint"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1WebhooksByEndpointId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Webhook endpoint id. */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["WebhookEndpoint"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    patchV1WebhooksByEndpointId: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Webhook endpoint id. */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": false
                 *     }
                 */
                "application/json": {
                    /** @description http(s) URL; private, loopback and link-local targets are refused unless ALLOW_PRIVATE_WEBHOOK_TARGETS */
                    url?: string;
                    events?: string[];
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["WebhookEndpoint"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1WebhooksByEndpointIdDeliveries: {
        parameters: {
            query?: {
                /** @description At most this many items. */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description Webhook endpoint id. */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["DeliveryAttempt"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1WebhooksByEndpointIdRotateSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Webhook endpoint id. */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        webhook: components["schemas"]["WebhookEndpoint"];
                        /** @description hex, 256 bits: the HMAC key of x-service-signature (shown only now) */
                        signing_secret: string;
                        /** @description the same key in the whsec_ form that Standard Webhooks libraries take */
                        standard_webhooks_secret: string;
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1WebhooksByEndpointIdDeliveriesByDeliveryIdReplay: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Webhook endpoint id. */
                endpointId: string;
                /** @description Delivery id. */
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        attempt: components["schemas"]["DeliveryAttempt"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1WebhooksByEndpointIdReplayFailed: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Webhook endpoint id. */
                endpointId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "since": "2026-01-15T00:00:00.000Z"
                 *     }
                 */
                "application/json": {
                    /**
                     * Format: date-time
                     * @description only deliveries created at or after this time
                     */
                    since?: string;
                };
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description failed deliveries put back on a fresh retry schedule */
                        replayed: number;
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdEvents: {
        parameters: {
            query?: {
                /** @description Resume point when there is no Last-Event-ID header: events numbered after it are sent. A non-negative integer, or `now` (ours: only events committed after the stream opens); default 0 (from the oldest stored event). */
                since?: string;
            };
            header?: {
                /** @description The id of the last event the client got (an EventSource sends it when it reconnects); takes precedence over `since`. Empty counts as absent. */
                "last-event-id"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An endless `text/event-stream` of `id`/`event`/`data` messages */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdActions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["Action"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdActions: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "create_ticket",
                 *       "description": "Open a support ticket",
                 *       "parameter_schema": {
                 *         "type": "object",
                 *         "required": [
                 *           "title"
                 *         ],
                 *         "properties": {
                 *           "title": {
                 *             "type": "string",
                 *             "maxLength": 200
                 *           },
                 *           "priority": {
                 *             "enum": [
                 *               "low",
                 *               "high"
                 *             ]
                 *           }
                 *         }
                 *       },
                 *       "response_schema": {
                 *         "type": "object",
                 *         "properties": {
                 *           "ticket_id": {
                 *             "type": "string"
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": {
                    /** @description a lowercase letter, then lowercase letters, digits, _ or - */
                    name: string;
                    description?: string;
                    /** @description JSON Schema (draft 2020-12) the protocol message's `parameters` must match; default: any object */
                    parameterSchema?: {
                        [key: string]: unknown;
                    };
                    /** @description JSON Schema (draft 2020-12) the protocol message's `parameters` must match; default: any object */
                    parameter_schema?: {
                        [key: string]: unknown;
                    };
                    /** @description JSON Schema (draft 2020-12) a response's `structured_data` must match; default: any object */
                    responseSchema?: {
                        [key: string]: unknown;
                    };
                    /** @description JSON Schema (draft 2020-12) a response's `structured_data` must match; default: any object */
                    response_schema?: {
                        [key: string]: unknown;
                    };
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        action: components["schemas"]["Action"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.action_exists.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdActionsByActionName: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
                /** @description The action's name. */
                actionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        action: components["schemas"]["Action"];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    putV1MailboxesByMailboxIdActionsByActionName: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
                /** @description The action's name. */
                actionName: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Open a support ticket (title required)",
                 *       "enabled": true
                 *     }
                 */
                "application/json": {
                    /** @description if given, must equal the name in the path (actions are not renamed) */
                    name?: string;
                    description?: string;
                    /** @description JSON Schema (draft 2020-12) the protocol message's `parameters` must match; default: any object */
                    parameterSchema?: {
                        [key: string]: unknown;
                    };
                    /** @description JSON Schema (draft 2020-12) the protocol message's `parameters` must match; default: any object */
                    parameter_schema?: {
                        [key: string]: unknown;
                    };
                    /** @description JSON Schema (draft 2020-12) a response's `structured_data` must match; default: any object */
                    responseSchema?: {
                        [key: string]: unknown;
                    };
                    /** @description JSON Schema (draft 2020-12) a response's `structured_data` must match; default: any object */
                    response_schema?: {
                        [key: string]: unknown;
                    };
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        action: components["schemas"]["Action"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1MailboxesByMailboxIdActionsByActionName: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
                /** @description The action's name. */
                actionName: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        action: components["schemas"]["Action"];
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdAutopilot: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        autopilot: {
                            /** @enum {string} */
                            mode: "observe" | "enforce";
                            rules: {
                                [key: string]: unknown;
                            }[];
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            updated_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    putV1MailboxesByMailboxIdAutopilot: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "mode": "observe",
                 *       "rules": []
                 *     }
                 */
                "application/json": {
                    /** @description observe: record what would happen; enforce: do it */
                    mode?: "observe" | "enforce";
                    /** @description rule objects (README "Autopilot") */
                    rules?: {
                        [key: string]: unknown;
                    }[];
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        autopilot: {
                            /** @enum {string} */
                            mode: "observe" | "enforce";
                            rules: {
                                [key: string]: unknown;
                            }[];
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            updated_at: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdAutopilotDecisions: {
        parameters: {
            query?: {
                /** @description At most this many items. */
                limit?: number;
                /** @description Only this message's decisions. */
                message_id?: string;
            };
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** Format: uuid */
                            id: string;
                            /** Format: uuid */
                            message_id: string;
                            /** @enum {string} */
                            mode: "observe" | "enforce";
                            matched_rules: string[];
                            actions: {
                                [key: string]: unknown;
                            }[];
                            blocked: boolean;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            created_at: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1MailboxesByMailboxIdAgentRuntimeBinding: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        binding: {
                            /** Format: uuid */
                            mailboxId: string;
                            agentId: string;
                            runtimeBaseUrl: string;
                            /** @enum {string} */
                            permissionTier: "read-only" | "draft" | "send" | "admin-lite" | "admin";
                            /** @enum {string} */
                            policyMode: "draft-first" | "auto-send" | "observe";
                            personaLabel: string;
                            enabled: boolean;
                            /** @description where processed inbound messages are POSTed: runtimeBaseUrl + /mailroom/messages */
                            deliveryUrl: string;
                            /**
                             * Format: uuid
                             * @description id of the runtime's API key (scope runtime)
                             */
                            runtimeKeyId: string | null;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            updatedAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdAgentRuntimeBinding: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "agentId": "support-bot",
                 *       "runtimeBaseUrl": "https://agents.example.com/support",
                 *       "permissionTier": "draft",
                 *       "policyMode": "draft-first"
                 *     }
                 */
                "application/json": {
                    /** @description required to create */
                    agentId?: string;
                    /** @description required to create; http(s), checked like webhook URLs */
                    runtimeBaseUrl?: string;
                    permissionTier?: "read-only" | "draft" | "send" | "admin-lite" | "admin";
                    policyMode?: "draft-first" | "auto-send" | "observe";
                    personaLabel?: string;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        binding: {
                            /** Format: uuid */
                            mailboxId: string;
                            agentId: string;
                            runtimeBaseUrl: string;
                            /** @enum {string} */
                            permissionTier: "read-only" | "draft" | "send" | "admin-lite" | "admin";
                            /** @enum {string} */
                            policyMode: "draft-first" | "auto-send" | "observe";
                            personaLabel: string;
                            enabled: boolean;
                            /** @description where processed inbound messages are POSTed: runtimeBaseUrl + /mailroom/messages */
                            deliveryUrl: string;
                            /**
                             * Format: uuid
                             * @description id of the runtime's API key (scope runtime)
                             */
                            runtimeKeyId: string | null;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            updatedAt: string;
                        };
                    };
                };
            };
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        binding: {
                            /** Format: uuid */
                            mailboxId: string;
                            agentId: string;
                            runtimeBaseUrl: string;
                            /** @enum {string} */
                            permissionTier: "read-only" | "draft" | "send" | "admin-lite" | "admin";
                            /** @enum {string} */
                            policyMode: "draft-first" | "auto-send" | "observe";
                            personaLabel: string;
                            enabled: boolean;
                            /** @description where processed inbound messages are POSTed: runtimeBaseUrl + /mailroom/messages */
                            deliveryUrl: string;
                            /**
                             * Format: uuid
                             * @description id of the runtime's API key (scope runtime)
                             */
                            runtimeKeyId: string | null;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            updatedAt: string;
                        };
                        /** @description the runtime's API key (svc_…), shown once; its tier and mode apply to every call it makes */
                        runtime_token: string;
                        /** @description hex; signs what the runtime receives (x-service-signature), shown once */
                        signing_secret: string;
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    deleteV1MailboxesByMailboxIdAgentRuntimeBinding: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        binding: {
                            /** Format: uuid */
                            mailboxId: string;
                            agentId: string;
                            runtimeBaseUrl: string;
                            /** @enum {string} */
                            permissionTier: "read-only" | "draft" | "send" | "admin-lite" | "admin";
                            /** @enum {string} */
                            policyMode: "draft-first" | "auto-send" | "observe";
                            personaLabel: string;
                            enabled: boolean;
                            /** @description where processed inbound messages are POSTed: runtimeBaseUrl + /mailroom/messages */
                            deliveryUrl: string;
                            /**
                             * Format: uuid
                             * @description id of the runtime's API key (scope runtime)
                             */
                            runtimeKeyId: string | null;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            updatedAt: string;
                        };
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1AdminAgentRuntimeBindings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** Format: uuid */
                            mailboxId: string;
                            agentId: string;
                            runtimeBaseUrl: string;
                            /** @enum {string} */
                            permissionTier: "read-only" | "draft" | "send" | "admin-lite" | "admin";
                            /** @enum {string} */
                            policyMode: "draft-first" | "auto-send" | "observe";
                            personaLabel: string;
                            enabled: boolean;
                            /** @description where processed inbound messages are POSTed: runtimeBaseUrl + /mailroom/messages */
                            deliveryUrl: string;
                            /**
                             * Format: uuid
                             * @description id of the runtime's API key (scope runtime)
                             */
                            runtimeKeyId: string | null;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            createdAt: string;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            updatedAt: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getV1AdminAgentRuntimeEvents: {
        parameters: {
            query?: {
                /** @description At most this many items. */
                limit?: number;
                /** @description Only this mailbox's events. */
                mailboxId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** Format: uuid */
                            id: string;
                            /** Format: uuid */
                            mailbox_id: string;
                            /** Format: uuid */
                            message_id: string | null;
                            /** @description routed, skipped, delivered, retrying, failed, or a runtime request its mode held: send_drafted, send_observed, protocol_send_observed, respond_observed */
                            kind: string;
                            detail: string;
                            data: {
                                [key: string]: unknown;
                            };
                            /** Format: uuid */
                            delivery_id: string | null;
                            /**
                             * Format: date-time
                             * @description UTC, ISO 8601
                             */
                            created_at: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postV1MailboxesByMailboxIdCallbackSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description Mailbox id. */
                mailboxId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "rotate": false
                 *     }
                 */
                "application/json": {
                    /** @description replace the secret; it signs every callback attempt from now on, those already queued included */
                    rotate?: boolean;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description hex; verify x-service-callback-signature (HMAC-SHA256 of the raw body) with it */
                        callback_secret: string;
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getWellKnownAgentJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            404: components["responses"]["Error404.not_found"];
            500: components["responses"]["Error500.internal_error"];
        };
    };
    getWellKnownAgentCardJson: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            404: components["responses"]["Error404.not_found"];
            500: components["responses"]["Error500.internal_error"];
        };
    };
    getAgentInboxByMessageId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The message's id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtocolMessage"];
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    getAgentInboxByMessageIdResponses: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The message's id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["ProtocolResponse"][];
                    };
                };
            };
            400: components["responses"]["Error400.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postAgentInbox: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "from": {
                 *         "agent": "procurement-bot",
                 *         "on_behalf_of": "Globex Inc.",
                 *         "callback_url": "https://agents.globex.example/callbacks"
                 *       },
                 *       "action": "create_ticket",
                 *       "parameters": {
                 *         "title": "Invoice 2291 is missing",
                 *         "priority": "high"
                 *       },
                 *       "subject": "Missing invoice",
                 *       "thread_id": "globex-2291",
                 *       "priority": "normal"
                 *     }
                 */
                "application/json": {
                    from?: {
                        /** @description the sending agent's name */
                        agent?: string;
                        /** @description the person or organisation the agent acts for */
                        on_behalf_of?: string;
                        /** @description responses are POSTed here, signed with x-service-callback-signature */
                        callback_url?: string;
                    };
                    /** @description an enabled action of the recipient; omit for a free-form message */
                    action?: string;
                    /** @description must match the action's parameter schema; only with an action */
                    parameters?: {
                        [key: string]: unknown;
                    };
                    /** @description required, not blank */
                    subject: string;
                    /** @description required (not blank) when there is no action */
                    body?: string;
                    /** @description the sender's conversation id; a sender's messages with the same id share a thread */
                    thread_id?: string;
                    priority?: "low" | "normal" | "high" | "urgent";
                    /** @description kept and returned as given (at most 16 KiB) */
                    metadata?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: uuid */
                        id: string;
                        /** @enum {string} */
                        status: "received" | "routed" | "responded" | "failed";
                        action: string | null;
                        /**
                         * Format: uuid
                         * @description the recipient's thread; may be sent back as thread_id
                         */
                        thread_id: string;
                        /**
                         * Format: date-time
                         * @description UTC, ISO 8601
                         */
                        created_at: string;
                        status_url: string;
                        responses_url: string;
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        disposition: "observed";
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.schema_validation_failed.unknown_action.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden.mailbox_disabled"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
    postAgentInboxByMessageIdRespond: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable characters; a retry with the same key and request replays the first response (header x-idempotent-replay: true) for 24 hours. */
                "Idempotency-Key"?: string;
            };
            path: {
                /** @description The message's id. */
                messageId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "body": "Ticket opened.",
                 *       "structured_data": {
                 *         "ticket_id": "T-1042"
                 *       }
                 *     }
                 */
                "application/json": {
                    body?: string;
                    /** @description must match the action's response schema */
                    structured_data?: {
                        [key: string]: unknown;
                    };
                    /** @description the same as structured_data */
                    structuredData?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        response: components["schemas"]["ProtocolResponse"];
                    };
                };
            };
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @constant */
                        disposition: "observed";
                    };
                };
            };
            400: components["responses"]["Error400.invalid_json.schema_validation_failed.validation_error"];
            401: components["responses"]["Error401.invalid_authorization.invalid_token.missing_authorization"];
            403: components["responses"]["Error403.forbidden"];
            404: components["responses"]["Error404.not_found"];
            409: components["responses"]["Error409.idempotency_key_in_use.idempotency_key_reused"];
            413: components["responses"]["Error413.payload_too_large"];
            415: components["responses"]["Error415.unsupported_media_type"];
            429: components["responses"]["Error429.rate_limit_exceeded"];
            500: components["responses"]["Error500.internal_error"];
            503: components["responses"]["Error503.service_unavailable"];
        };
    };
}
