-- ------------------------------------------------------------------------------------------------

-- Epoch microseconds (numeric) to a timestamp, rounded half-to-even; NULL when not a plausible event time.
-- (Every helper here is a single SQL expression with honest volatility, so the planner inlines it: a SQL
-- function that is not inlined costs a full function-executor call per row.)
CREATE OR REPLACE FUNCTION workflow_index.micros_to_time(us NUMERIC) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN abs(us) <= 9e15
    THEN to_timestamp(0) + (CASE WHEN abs(us - trunc(us)) = 0.5 THEN 2 * round(us / 2) ELSE round(us) END)::BIGINT * INTERVAL '1 microsecond'
  END
$$;

-- An epoch number: below 1e11 seconds, below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds.
CREATE OR REPLACE FUNCTION workflow_index.epoch_to_time(n NUMERIC) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN abs(n) < 1e11 THEN workflow_index.micros_to_time(n * 1000000)
              WHEN abs(n) < 1e14 THEN workflow_index.micros_to_time(n * 1000)
              WHEN abs(n) < 1e17 THEN workflow_index.micros_to_time(n)
              WHEN abs(n) < 1e25 THEN workflow_index.micros_to_time(n / 1000) END
$$;

-- A time value: a JSON number or numeric string (epoch, see above), or an ISO-8601 string with an offset.
CREATE OR REPLACE FUNCTION workflow_index.parse_event_time(v JSONB) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'number' THEN workflow_index.epoch_to_time((v #>> '{}')::NUMERIC)
    WHEN 'string' THEN CASE
      WHEN btrim(v #>> '{}') ~ '^[+-]?([0-9]{1,30}(\.[0-9]{0,30})?|\.[0-9]{1,30})([eE][+-]?[0-9]{1,3})?$'
        THEN workflow_index.epoch_to_time(btrim(v #>> '{}')::NUMERIC)
      -- Shape checked here; an impossible date that still matches (Feb 30) raises in the cast and is then
      -- isolated and recorded by the batch bisection in apply_events.
      WHEN (v #>> '{}') ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9]([.,][0-9]{1,12})?)?([Zz]|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)$'
        THEN replace(v #>> '{}', ',', '.')::TIMESTAMPTZ
    END
  END
$$;

