-- Hand-written (issue 16). mailroom_text_vector (migration 0021) with the same vectors, without the check of a lexeme's 255 positions where the service ruled it out: the check read `pieces->>'c' = '1' AND EXISTS (…)`, which for pieces without "c" (nearly all) is NULL AND …, and PostgreSQL evaluates the EXISTS to tell NULL from false, unnesting every lexeme of the vector into a row and an array. That was a fifth of the trigger's CPU in the ingest bench (perf: tsvector_unnest under the InitPlan, 3.8% of the backends' samples).
CREATE OR REPLACE FUNCTION "mailroom_text_vector"(pieces jsonb) RETURNS tsvector LANGUAGE plpgsql STABLE AS $$
DECLARE
	parts text[] := ARRAY(SELECT jsonb_array_elements_text(pieces->'p'));
	made record;
	v tsvector;
	seg tsvector;
	took int;
	last int;
BEGIN
	-- Words not known to the service: their lexemes (positions within the word, for a hyphenated
	-- one) at their positions in their part, appended to the part's literal. Most texts have none,
	-- and the query costs its start-up even then.
	IF jsonb_array_length(pieces->'m') > 0 THEN
	FOR made IN
		SELECT (e->>1)::int AS part, string_agg(
			'''' || replace(replace(t.lexeme, '\', '\\'), '''', '''''') || ''':' ||
			(SELECT string_agg((p + lp - 1)::text, ',') FROM unnest(string_to_array(e->>2, ',')::int[]) p, unnest(t.positions) lp),
			' ') AS lexemes
		FROM jsonb_array_elements(pieces->'m') e
		CROSS JOIN LATERAL unnest(to_tsvector('english', e->>0)) t
		GROUP BY 1
	LOOP
		parts[made.part + 1] := parts[made.part + 1] || ' ' || made.lexemes;
	END LOOP;
	END IF;
	v := parts[1]::tsvector;
	FOR i IN 1 .. coalesce(array_length(parts, 1), 1) - 1 LOOP
		-- The marker after the segment takes the position after the segment's last; one pass
		-- reads both.
		seg := to_tsvector('english', (pieces->'s'->>(i - 1)) || ' mailroomend');
		SELECT max(p) FILTER (WHERE u.lexeme = 'mailroomend') - 1, coalesce(max(p) FILTER (WHERE u.lexeme <> 'mailroomend'), 0)
			INTO took, last FROM unnest(seg) u, unnest(u.positions) p;
		-- The marker did not come back as itself (a changed `english` configuration): the trigger makes it all.
		IF took IS NULL THEN
			RETURN NULL;
		END IF;
		seg := ts_delete(seg, 'mailroomend');
		-- Ended on the segment's last position, whatever stop words close it.
		IF took > last THEN
			seg := seg || ('mailroomend:' || (took - last))::tsvector;
		END IF;
		v := v || seg || parts[i + 1]::tsvector;
	END LOOP;
	v := ts_delete(v, 'mailroomend');
	-- || keeps 256 positions of a lexeme where to_tsvector keeps 255: where the service could not
	-- rule that out ("c"), a lexeme that reached the limit leaves the text to the trigger.
	-- coalesce: without "c" the test is NULL, and NULL AND … still evaluates the EXISTS (AND stops
	-- only at false), which unnested the whole vector for every text.
	IF coalesce(pieces->>'c', '') = '1' AND EXISTS (SELECT 1 FROM unnest(v) u WHERE cardinality(u.positions) >= 255) THEN
		RETURN NULL;
	END IF;
	-- Weight C for all of it at once: spelled on every position, it was a seventh of what
	-- PostgreSQL parsed.
	RETURN setweight(v, 'C');
END
$$;
