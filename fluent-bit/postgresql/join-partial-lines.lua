-- Joins the parts of a line the container runtime split at 16 KiB (CRI `P` parts up to the `F` part).
--
-- Why not `multiline.parser cri`: Fluent Bit's multiline engine force-flushes every pending group on a global
-- timer (4 s, counted from its previous flush, not from the group's last part). A `P` part waiting for its `F`
-- across a tick is emitted alone, both halves fail JSON parsing and the event is lost without a trace. This
-- filter has no timer: it holds `P` parts until their `F` part arrives, however late.
--
-- Input: records of the tail input's `cri_line` regex parser: { time, stream, _p = "P"|"F", log }. Records
-- without `_p` (a line the CRI regex did not match) pass untouched.
-- Parts are held per (tail tag = log file, stream): the runtime interleaves stdout and stderr lines, never two
-- lines of one stream.
--
-- Return codes (filter_lua): -1 drops the record (a held part; it counts in the filter's drop metric),
-- 0 keeps it unchanged, 2 replaces the record and keeps the F part's timestamp. The record only holds strings,
-- so the Lua <-> msgpack conversion cannot alter anything (the event's JSON is still one string here).
--
-- Cap: a joined line is never longer than MAX_JOINED_BYTES. The parts beyond the cap are counted, not kept; the F
-- part then emits the text up to the cap with `wi_join_truncated` set to the whole line's size in bytes, and the
-- routing sends the record to the raw tables, where the normalizer records it in ingest_errors (with that size, and
-- the instance id when the kept text names one) instead of it vanishing.
--
-- Parts held when Fluent Bit stops are lost (Lua state is memory only). The rest of that line, read after the
-- restart, is the first line this process sees of its (file, stream): when it does not start a JSON object but ends
-- one, it is marked `wi_join_orphan` (its size in bytes), routed to the raw tables and recorded in ingest_errors as
-- the end of a line whose beginning was lost, instead of being dropped without a trace.

MAX_JOINED_BYTES = 8 * 1024 * 1024

local held = {}
local known = {}

local function key_of(tag, record)
  return tag .. "\0" .. tostring(record["stream"])
end

-- The end of a JSON object line without its beginning.
local function looks_like_orphan(log)
  return string.find(log, "^[ \t\n\v\f\r]*{") == nil and string.find(log, "}[ \t\n\v\f\r]*$") ~= nil
end

function join_partial_lines(tag, timestamp, record)
  local flag = record["_p"]
  local log = record["log"]
  if flag ~= "P" and flag ~= "F" then
    return 0, timestamp, record
  end
  -- The regex parser skips empty values (Skip_Empty_Values): an empty F part (a line of exactly 16 KiB) has no
  -- `log`. It still ends the line.
  if log == nil then log = "" end
  if type(log) ~= "string" then
    return 0, timestamp, record
  end
  local key = key_of(tag, record)
  local first = known[key] == nil
  known[key] = true
  local state = held[key]

  if flag == "P" then
    if state == nil then
      state = { parts = {}, size = 0, seen = 0, first = first }
      held[key] = state
    end
    local room = MAX_JOINED_BYTES - state.size
    if #log <= room then
      state.parts[#state.parts + 1] = log
      state.size = state.size + #log
    elseif room > 0 then
      state.parts[#state.parts + 1] = string.sub(log, 1, room)
      state.size = MAX_JOINED_BYTES
    end
    state.seen = state.seen + #log
    return -1, timestamp, record
  end

  -- flag == "F"
  if state == nil then
    if first and looks_like_orphan(log) then
      record["wi_join_orphan"] = tostring(#log)
      return 2, timestamp, record
    end
    return 0, timestamp, record
  end
  held[key] = nil
  local total = state.seen + #log
  local room = MAX_JOINED_BYTES - state.size
  if #log <= room then
    state.parts[#state.parts + 1] = log
  elseif room > 0 then
    state.parts[#state.parts + 1] = string.sub(log, 1, room)
  end
  record["log"] = table.concat(state.parts)
  if total > MAX_JOINED_BYTES then
    record["wi_join_truncated"] = tostring(total)
  end
  if state.first and looks_like_orphan(record["log"]) then
    record["wi_join_orphan"] = tostring(total)
  end
  return 2, timestamp, record
end
