-- Hand-written (issue 16). The service hands in the text part of a message's full-text vector in pieces (src/mail/text-vector-pieces.ts) instead of whole: the words it knows as tsvector literals, one per stretch of text between two segments (the pieces only PostgreSQL's parser splits), the segments themselves, and the words it does not know yet with their positions. mailroom_text_vector parses the segments and the unknown words here and joins everything with tsvector ||, which moves each right side past the largest position of its left side; every piece ends on its last position with the marker lexeme mailroomend, deleted at the end. So the service needs no statement of its own to ask for lexemes or segments. The trigger of migration 0018 takes this form ("<message id> {json}") beside the whole literal ("<message id> <tsvector>"), and computes the text part itself otherwise, as before.
CREATE FUNCTION "mailroom_text_vector"(pieces jsonb) RETURNS tsvector LANGUAGE plpgsql STABLE AS $$
DECLARE
	parts text[] := ARRAY(SELECT jsonb_array_elements_text(pieces->'p'));
	made record;
	v tsvector;
	seg tsvector;
	took int;
	last int;
BEGIN
	-- Words not known to the service: their lexemes (positions within the word, for a hyphenated
	-- one) at their positions in their part, appended to the part's literal.
	FOR made IN
		SELECT (e->>1)::int AS part, string_agg(
			'''' || replace(replace(t.lexeme, '\', '\\'), '''', '''''') || ''':' ||
			(SELECT string_agg((p + lp - 1)::text || 'C', ',') FROM unnest(string_to_array(e->>2, ',')::int[]) p, unnest(t.positions) lp),
			' ') AS lexemes
		FROM jsonb_array_elements(pieces->'m') e
		CROSS JOIN LATERAL unnest(to_tsvector('english', e->>0)) t
		GROUP BY 1
	LOOP
		parts[made.part + 1] := parts[made.part + 1] || ' ' || made.lexemes;
	END LOOP;
	v := parts[1]::tsvector;
	FOR i IN 1 .. coalesce(array_length(parts, 1), 1) - 1 LOOP
		-- The marker after the segment takes the position after the segment's last.
		seg := setweight(to_tsvector('english', (pieces->'s'->>(i - 1)) || ' mailroomend'), 'C');
		SELECT max(p) - 1 INTO took FROM unnest(seg) u, unnest(u.positions) p WHERE u.lexeme = 'mailroomend';
		-- The marker did not come back as itself (a changed `english` configuration): the trigger makes it all.
		IF took IS NULL THEN
			RETURN NULL;
		END IF;
		seg := ts_delete(seg, 'mailroomend');
		SELECT coalesce(max(p), 0) INTO last FROM unnest(seg) u, unnest(u.positions) p;
		-- Ended on the segment's last position, whatever stop words close it.
		IF took > last THEN
			seg := seg || ('mailroomend:' || (took - last))::tsvector;
		END IF;
		v := v || seg || parts[i + 1]::tsvector;
	END LOOP;
	v := ts_delete(v, 'mailroomend');
	-- || keeps 256 positions of a lexeme where to_tsvector keeps 255: where the service could not
	-- rule that out ("c"), a lexeme that reached the limit leaves the text to the trigger.
	IF pieces->>'c' = '1' AND EXISTS (SELECT 1 FROM unnest(v) u WHERE cardinality(u.positions) >= 255) THEN
		RETURN NULL;
	END IF;
	RETURN v;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION "messages_search_tsv"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	given text := current_setting('mailroom.text_vector', true);
	id text := NEW.id::text;
	text_part tsvector;
BEGIN
	IF given IS NOT NULL AND left(given, length(id) + 1) = id || ' ' THEN
		IF substr(given, length(id) + 2, 1) = '{' THEN
			text_part := mailroom_text_vector(substr(given, length(id) + 2)::jsonb);
		ELSE
			text_part := substr(given, length(id) + 2)::tsvector;
		END IF;
		PERFORM set_config('mailroom.text_vector', '', true);
	END IF;
	IF text_part IS NULL THEN
		text_part := setweight(to_tsvector('english', left(coalesce(NEW.extracted_text, NEW.text_body, ''), 200000)), 'C');
	END IF;
	NEW.search_tsv := setweight(to_tsvector('english', left(NEW.subject, 2000)), 'A')
		|| setweight(to_tsvector('english', left(NEW.from_address || ' ' || NEW.to_address || ' ' || translate(NEW.cc::text, '[]",', '    '), 4000)
			|| ' ' || translate(left(NEW.from_address || ' ' || NEW.to_address || ' ' || NEW.cc::text, 4000), '@.[]",', '      ')), 'B')
		|| setweight(to_tsvector('english', left(NEW.attachment_names, 4000) || ' ' || translate(left(NEW.attachment_names, 4000), '-_.', '   ')), 'B')
		|| text_part;
	RETURN NEW;
END
$$;
