-- Makes a lifecycle event safe for PostgreSQL before the pgsql output writes it.
--
-- The pgsql output sends a whole chunk as one INSERT of a JSON array. Two values that JSON producers can emit
-- are rejected by PostgreSQL before any trigger runs, failing the whole statement: a string containing U+0000
-- (JSONB cannot store it) and a number Fluent Bit parsed as infinite (printed as `inf`, which is not JSON).
-- With unlimited retries that chunk would be retried forever and the good events in it never written. So:
-- NUL characters become U+FFFD, non-finite numbers become the strings "Infinity", "-Infinity", "NaN".
-- Everything else is returned untouched (return code 0: Fluent Bit keeps the original record).

local REPLACEMENT = "\239\191\189" -- U+FFFD in UTF-8

local function clean(value)
  local kind = type(value)
  if kind == "string" then
    if string.find(value, "\0", 1, true) then
      return (string.gsub(value, "%z", REPLACEMENT)), true
    end
    return value, false
  elseif kind == "number" then
    if value ~= value then return "NaN", true end
    if value == math.huge then return "Infinity", true end
    if value == -math.huge then return "-Infinity", true end
    return value, false
  elseif kind == "table" then
    local changed = false
    for key, item in pairs(value) do
      local cleaned, item_changed = clean(item)
      if item_changed then
        value[key] = cleaned -- replaces an existing field: allowed while traversing
        changed = true
      end
    end
    return value, changed
  end
  return value, false
end

function sanitize_record(tag, timestamp, record)
  local cleaned, changed = clean(record)
  if changed then
    return 2, timestamp, cleaned -- record modified, timestamp kept
  end
  return 0, timestamp, record
end
