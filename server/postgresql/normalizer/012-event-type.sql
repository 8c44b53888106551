-- ------------------------------------------------------------------------------------------------
-- An event type's kind and action, matched on its suffix `…(workflow|task).<action>.v<n>` (the producer's prefix,
-- io.serverlessworkflow., may change in future SDKs): {kind, action}, or NULL when the text does not end so.
--
-- Exactly what regexp_match(et, '(?:^|\.)(workflow|task)\.([a-z-]+)\.v[0-9]+$') returns (an action has no '.', so
-- the three parts are the last three dot-separated fields), but with split_part and ltrim: the regular expression,
-- unanchored with capture groups, took about a tenth of the normalizer's time per event.
-- A single expression, so it is inlined where it is called.
-- ------------------------------------------------------------------------------------------------
CREATE OR REPLACE FUNCTION workflow_index.event_type_suffix(et TEXT) RETURNS TEXT[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN split_part(et, '.', -3) IN ('workflow', 'task')
                   AND split_part(et, '.', -2) <> ''
                   AND ltrim(split_part(et, '.', -2), 'abcdefghijklmnopqrstuvwxyz-') = ''
                   AND left(split_part(et, '.', -1), 1) = 'v'
                   AND length(split_part(et, '.', -1)) > 1
                   AND ltrim(substr(split_part(et, '.', -1), 2), '0123456789') = ''
              THEN ARRAY[split_part(et, '.', -3), split_part(et, '.', -2)] END
$$;
