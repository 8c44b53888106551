-- Keeps an event's own top-level members that a forwarder stage would take for its own: `kubernetes` and
-- `wi_record_time` are renamed `wi_event_kubernetes` and `wi_event_wi_record_time` on the raw line (record["log"]),
-- after repair-line.lua and BEFORE the parser filter.
--   kubernetes: the kubernetes filter appends its own `kubernetes`; Fluent Bit's JSON printer prints a repeated key
--     once, with its last value (src/flb_pack.c msgpack2json), so the event's value would be lost; and when the pod
--     lookup fails (no `kubernetes` appended) require_pod_metadata and the opt-out label (`$kubernetes[...]`) would
--     read the event's own one: an event claiming a pod_id would pass the fail-closed rule and its pod's opt-out.
--   wi_record_time: the pgsql output's Timestamp_Key (fluent-bit.conf). The output packs its key FIRST into one map
--     with the record, and the printer keeps the last of a repeated key: the event's value would replace the record
--     time (a number silently; a non-number fails the statement's CAST, and Fluent Bit retries that chunk, good
--     events included, for ever). The database replaces such a value too (workflow_raw.json_array_elements), for
--     forwarders without this script; only the rename keeps a numeric one from becoming the record time.
-- The new names are the ones the OpenSearch configuration gives such members (opensearch-document.lua), so both
-- backends store the event's value under the same name. The normalizer reads none of these names, and the event
-- identity ignores them (docs/write-path.md), so nothing served changes; a member already named like the new one
-- meets the renamed one as a repeated name: the last is kept (jsonb), as on OpenSearch.
--
-- A name matches when it decodes to one of the names (`"\u006bubernetes"` is the same name to the JSON parser); the
-- raw spelling is kept after the prefix. Applies only to a line that is one JSON object after JSON whitespace (a
-- line that does not parse never meets these stages). Nothing to change: return code 0 (the record is kept
-- untouched); otherwise only record["log"] is replaced: the record holds only strings here, so the Lua<->msgpack
-- round trip of code 2 loses nothing (see repair-line.lua). The TypeScript twin is
-- fluent-bit/model/event-kubernetes.ts (proved equal under luajit).

local byte, sub, find, char = string.byte, string.sub, string.find, string.char

-- The names a forwarder stage of ours adds at the top level (wi_record_time: Timestamp_Key of the pgsql outputs).
local NAMES = { kubernetes = true, wi_record_time = true }
local PREFIX = "wi_event_"

-- The name a key's raw text decodes to, when it can be one of NAMES: escapes other than \u00XX below 0x80 decode to
-- characters that are not letters, so such a key is never this name (nil).
local function ascii_name(raw)
  if not find(raw, "\\", 1, true) then return raw end
  local out = string.gsub(raw, "\\u00([0-7]%x)", function(h) return char(tonumber(h, 16)) end)
  if find(out, "\\", 1, true) then return nil end
  return out
end

local function is_space(c) return c == 32 or c == 9 or c == 10 or c == 13 end

-- Offsets (after the key's opening quote) of the top-level keys named as in NAMES, or nil when the line is not one
-- JSON object. Strings are skipped with plain finds; only the depth is tracked.
local function matches(s)
  local len = #s
  local i = 1
  while i <= len and is_space(byte(s, i)) do i = i + 1 end
  if byte(s, i) ~= 123 then return nil end
  local depth, found = 0, {}
  local expect_key = false
  while i <= len do
    local c = byte(s, i)
    if c == 34 then
      local j = i + 1
      while true do
        local q = find(s, '"', j, true)
        if not q then return nil end
        local k = q - 1
        while k >= j and byte(s, k) == 92 do k = k - 1 end
        if (q - 1 - k) % 2 == 0 then j = q; break end
        j = q + 1
      end
      if depth == 1 and expect_key then
        local name = ascii_name(sub(s, i + 1, j - 1))
        if name and NAMES[name] then found[#found + 1] = i + 1 end
      end
      expect_key = false
      i = j + 1
    elseif c == 123 or c == 91 then
      depth = depth + 1
      expect_key = c == 123
      i = i + 1
    elseif c == 125 or c == 93 then
      if depth == 0 then return nil end
      depth = depth - 1
      expect_key = false
      i = i + 1
      if depth == 0 then
        while i <= len and is_space(byte(s, i)) do i = i + 1 end
        if i <= len then return nil end
      end
    elseif c == 44 then
      if depth == 0 then return nil end
      -- Only the top level's keys matter: a comma there is followed by a key.
      expect_key = depth == 1
      i = i + 1
    else
      if depth == 0 then return nil end
      i = i + 1
    end
  end
  if depth ~= 0 then return nil end
  return found
end

function keep_event_kubernetes(tag, timestamp, record)
  local line = record["log"]
  if type(line) ~= "string" then return 0, timestamp, record end
  local found = matches(line)
  if not found or #found == 0 then return 0, timestamp, record end
  local out, copied = {}, 1
  for _, at in ipairs(found) do
    out[#out + 1] = sub(line, copied, at - 1)
    out[#out + 1] = PREFIX
    copied = at
  end
  out[#out + 1] = sub(line, copied)
  record["log"] = table.concat(out)
  return 2, timestamp, record
end
