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

-- An epoch JSON number, held as the IEEE double it denotes: that is what every JSON reader (Fluent Bit included)
-- makes of it, and Fluent Bit re-prints it with %.16g. Rounding the double's exact value (not the printed decimal)
-- is the only rule that gives the same microsecond for `1.7954415253508985E9` as printed by the producer and as
-- re-printed by Fluent Bit (`1795441525.350899`): the decimal is an exact half, the double lies above it.
-- Seconds and milliseconds are split into an exact whole part and an exact fraction before scaling, so the scaling
-- cannot move a value across a half microsecond; larger values are integral doubles, converted exactly.
CREATE OR REPLACE FUNCTION workflow_index.double_epoch_to_time(d DOUBLE PRECISION) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  -- round(double precision) rounds half to even (rint). Integer arithmetic, no numeric, on this hot path; the same
  -- plausibility bound as micros_to_time (|µs| <= 9e15), checked on d.
  SELECT to_timestamp(0) + INTERVAL '1 microsecond' * CASE
    WHEN abs(d) < 1e11 THEN CASE WHEN abs(d) <= 9e9 THEN floor(d)::BIGINT * 1000000 + round((d - floor(d)) * 1e6)::BIGINT END
    WHEN abs(d) < 1e14 THEN CASE WHEN abs(d) <= 9e12 THEN floor(d)::BIGINT * 1000 + round((d - floor(d)) * 1e3)::BIGINT END
    WHEN abs(d) < 1e17 THEN CASE WHEN abs(d) <= 9e15 THEN round(d)::BIGINT END
    -- nanoseconds: an integral double; a tie at half a microsecond cannot occur (such doubles are multiples of 16)
    WHEN abs(d) < 9e18 THEN round(d::BIGINT / 1000.0)::BIGINT END
$$;

-- The double a JSON number denotes; NULL for anything else or beyond any epoch magnitude (1e25).
CREATE OR REPLACE FUNCTION workflow_index.json_number_double(v JSONB) RETURNS DOUBLE PRECISION
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' AND v < '1e25'::JSONB AND v > '-1e25'::JSONB THEN v::DOUBLE PRECISION END
$$;

-- A time value: a JSON number (as a double, above; `n` is json_number_double(v), computed once by the caller so
-- that this function and double_epoch_to_time are inlined) or a numeric string (its exact decimal; epoch units by
-- magnitude, see epoch_to_time), or an ISO-8601 string with an offset.
CREATE OR REPLACE FUNCTION workflow_index.parse_event_time(v JSONB, n DOUBLE PRECISION) RETURNS TIMESTAMPTZ
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'number' THEN workflow_index.double_epoch_to_time(n)
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

