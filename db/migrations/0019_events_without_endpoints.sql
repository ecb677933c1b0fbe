-- Hand-written (issue 16). An event that no enabled webhook endpoint of its mailbox subscribes to is done when it is written: the event relay has nothing to fan out for it, and before this it still claimed every such event and updated it to done (two events per inbound message: a statement of the relay and a second version of each outbox row, with its index entries, for nothing). The outbox keeps the event as before (its mailbox number, the SSE replay, the retention sweep by done_at). Only events that some endpoint wants wake the relays, on their own channel (mailroom_relay); the event streams still wake on mailroom_events for every event. Which endpoints get an event is decided when the event is written, in its transaction: an endpoint created or enabled after an event gets the events written after it.
CREATE OR REPLACE FUNCTION "outbox_assign_mailbox_seq"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.kind = 'event' AND NEW.mailbox_id IS NOT NULL THEN
    INSERT INTO mailbox_event_counters (mailbox_id, last_seq) VALUES (NEW.mailbox_id, 1)
    ON CONFLICT (mailbox_id) DO UPDATE SET last_seq = mailbox_event_counters.last_seq + 1
    RETURNING last_seq INTO NEW.mailbox_seq;
    PERFORM pg_notify('mailroom_events', NEW.mailbox_id::text);
    IF NEW.done_at IS NULL AND NOT EXISTS (
      SELECT 1 FROM webhook_endpoints e WHERE e.mailbox_id = NEW.mailbox_id AND e.enabled AND NEW.topic = ANY (e.events)
    ) THEN
      NEW.done_at := now();
    ELSE
      -- One notification per transaction however many events it writes (identical ones are folded).
      PERFORM pg_notify('mailroom_relay', '');
    END IF;
  END IF;
  RETURN NEW;
END
$$;
