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
-- Cap: a joined line is never longer than MAX_JOINED_BYTES. When the held parts would exceed it, the text held
-- so far (cut at the cap) is emitted once with `wi_join_truncated` set to the byte count seen, the remaining
-- parts of that line are discarded, and the routing sends the record to the raw tables, where the normalizer
-- records it in ingest_errors instead of it vanishing.
--
-- Not covered (Lua state is memory only): parts held when Fluent Bit stops are lost, and the F part read after
-- the restart arrives alone (recorded in ingest_errors if it still contains "eventType", otherwise dropped).

MAX_JOINED_BYTES = 8 * 1024 * 1024

local held = {}

local function key_of(tag, record)
  return tag .. "\0" .. tostring(record["stream"])
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
  local state = held[key]

  if flag == "P" then
    if state == nil then
      state = { parts = {}, size = 0, truncated = false }
      held[key] = state
    end
    if not state.truncated then
      if state.size + #log > MAX_JOINED_BYTES then
        state.truncated = true
        state.seen = state.size + #log
        local room = MAX_JOINED_BYTES - state.size
        if room > 0 then state.parts[#state.parts + 1] = string.sub(log, 1, room) end
        local cut = { time = record["time"], stream = record["stream"], _p = "P", log = table.concat(state.parts),
                      wi_join_truncated = tostring(state.seen) }
        state.parts = nil
        return 2, timestamp, cut
      end
      state.parts[#state.parts + 1] = log
      state.size = state.size + #log
    else
      state.seen = state.seen + #log
    end
    return -1, timestamp, record
  end

  -- flag == "F"
  if state == nil then
    return 0, timestamp, record
  end
  held[key] = nil
  if state.truncated then
    return -1, timestamp, record
  end
  if state.size + #log > MAX_JOINED_BYTES then
    local room = MAX_JOINED_BYTES - state.size
    if room > 0 then state.parts[#state.parts + 1] = string.sub(log, 1, room) end
    record["log"] = table.concat(state.parts)
    record["wi_join_truncated"] = tostring(state.size + #log)
    return 2, timestamp, record
  end
  state.parts[#state.parts + 1] = log
  record["log"] = table.concat(state.parts)
  return 2, timestamp, record
end
