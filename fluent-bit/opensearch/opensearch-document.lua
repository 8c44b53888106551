-- The OpenSearch document rule: runs on the raw line (record["log"]) after repair-line.lua and BEFORE the parser
-- filter, so every event reaches OpenSearch as a document it stores. Fluent Bit's opensearch output retries a
-- whole chunk whenever one item of its `_bulk` answer is not 201/409, so one refused document would be retried
-- for ever and never indexed, and several names are worse than refused: taken as metadata and lost silently.
-- Found by sending each case through the raw templates and pipeline to OpenSearch 3.8.0 (fluent-bit/test/
-- opensearch-hostile-lines.test.ts keeps every case under test):
--
--   D1 a repeated member name in any object -> only the last one is kept (what PostgreSQL's jsonb keeps);
--      OpenSearch refuses a document with a duplicate name at any depth, and through the raw pipeline that fails
--      EVERY item of the request (400 "Duplicate Object property"), the good events beside it included.
--   D2 a top-level member whose name OpenSearch takes or refuses -> renamed `wi_event_<name>`:
--        names starting with `_`   (`_id`, `_index`, `_routing`, `_version` vanish into metadata, `_routing`
--                                   even routes the document; `_source`, `_seq_no`, ... are refused, and
--                                   `_if_seq_no` fails the request with 500)
--        `@timestamp`               (the output adds its own time key first: two of them fail the request)
--        `wi`                       (the raw pipeline writes its derived fields there: the event's value would
--                                   be replaced silently)
--        `kubernetes`               (the kubernetes filter appends its own; require_pod_metadata would read the
--                                   event's one, find no pod_id and drop the event as if its lookup had failed)
--        an empty name, or a dotted name with an empty or whitespace-only segment (`.a`, `a..b`, `.`, ` ..`):
--                                   refused (400); their dots become `_` in the new name, which would
--                                   otherwise still be refused.
--      Renaming happens before D1, so a renamed member that meets a member of its new name keeps the last.
--   D3 a member name (at any depth) longer than 50,000 bytes once decoded to UTF-8 -> the member becomes
--      `"wi_event_long_name":"<the member's exact text, name and value>"` (`wi_event_long_name_2`, `_3`, ... for
--      further ones in the same object): OpenSearch's parser refuses such a name (StreamReadConstraints
--      maxNameLength, measured in UTF-8 bytes). Nothing is lost: the text is kept as a string value.
--
-- Depth needs no rule here: repair-line.lua (R5) turns any container deeper than 1000 into a string, which is
-- exactly what the parser accepts (maxNestingDepth 1000), and the raw templates set index.mapping.depth.limit to
-- 1000 (its default 20 refuses a top-level array nested deeper than 20).
--
-- Applies only to a line that is one complete JSON object (after JSON whitespace); anything else is left as it is
-- and reaches OpenSearch as an unparsed line under `log`. Nothing to change: return code 0 (the record is kept
-- untouched). Otherwise only record["log"] is replaced: the record holds only strings here, so the Lua<->msgpack
-- round trip of code 2 loses nothing (see repair-line.lua for why this must run before the parser).
-- The TypeScript twin is server/opensearch/src/opensearch-document.ts (proved equal under luajit; the Fluent Bit
-- model and the bulk writer of server/opensearch both run it).

local byte, sub, find, char = string.byte, string.sub, string.find, string.char
local concat = table.concat

local RENAME_PREFIX = "wi_event_"
local RESERVED = { ["@timestamp"] = true, wi = true, kubernetes = true }
local MAX_NAME_BYTES = 50000
local LONG_NAME = RENAME_PREFIX .. "long_name"

-- JSON string escaping of a member's text (the spelling of JSON.stringify, as repair-line.lua's R5).
local QUOTE_ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\t"] = "\\t", ["\n"] = "\\n", ["\f"] = "\\f", ["\r"] = "\\r" }
for b = 0, 31 do
  local c = string.char(b)
  if not QUOTE_ESCAPES[c] then QUOTE_ESCAPES[c] = string.format("\\u%04x", b) end
end

local function json_quote(text)
  return '"' .. string.gsub(text, '[%z\1-\31"\\]', QUOTE_ESCAPES) .. '"'
end

local SHORT = { [34] = '"', [92] = "\\", [47] = "/", [98] = "\b", [102] = "\f", [110] = "\n", [114] = "\r", [116] = "\t" }

-- Four hex digits at `at`, or nil.
local function hex4(s, at)
  local h = sub(s, at, at + 3)
  if not find(h, "^%x%x%x%x$") then return nil end
  return tonumber(h, 16)
end

local function utf8_of(code)
  if code < 0x80 then return char(code) end
  if code < 0x800 then return char(0xC0 + math.floor(code / 64), 0x80 + code % 64) end
  if code < 0x10000 then
    return char(0xE0 + math.floor(code / 4096), 0x80 + math.floor(code / 64) % 64, 0x80 + code % 64)
  end
  return char(0xF0 + math.floor(code / 262144), 0x80 + math.floor(code / 4096) % 64, 0x80 + math.floor(code / 64) % 64, 0x80 + code % 64)
end

-- The decoded bytes of a string token's inner text (escapes resolved; a lone surrogate decodes to U+FFFD, as its
-- UTF-8 encoding would be replaced).
local function decode(raw)
  if not find(raw, "\\", 1, true) then return raw end
  local out, n, i, len = {}, 0, 1, #raw
  while i <= len do
    local b = find(raw, "\\", i, true)
    if not b then n = n + 1; out[n] = sub(raw, i); break end
    if b > i then n = n + 1; out[n] = sub(raw, i, b - 1) end
    local e = byte(raw, b + 1)
    if e == 117 then
      local code = hex4(raw, b + 2) or 0xFFFD
      local step = 6
      if code >= 0xD800 and code <= 0xDBFF and byte(raw, b + 6) == 92 and byte(raw, b + 7) == 117 then
        local low = hex4(raw, b + 8) or 0
        if low >= 0xDC00 and low <= 0xDFFF then
          code = 0x10000 + (code - 0xD800) * 1024 + (low - 0xDC00)
          step = 12
        else
          code = 0xFFFD
        end
      elseif code >= 0xD800 and code <= 0xDFFF then
        code = 0xFFFD
      end
      n = n + 1; out[n] = utf8_of(code)
      i = b + step
    else
      n = n + 1; out[n] = SHORT[e] or ""
      i = b + 2
    end
  end
  return concat(out, "", 1, n)
end

-- A dotted name OpenSearch splits into object fields and refuses when one of them is empty or only bytes up to
-- 0x20 (`.a`, `a..b`, `.`, ` ..`, `a. .b`); trailing dots are ignored (as Java's split ignores trailing empty strings),
-- and a name without a dot is one field.
local function has_empty_segment(name)
  if not find(name, ".", 1, true) then return false end
  local trimmed = string.gsub(name, "%.+$", "")
  for segment in string.gmatch(trimmed .. ".", "([^.]*)%.") do
    if not find(segment, "[^%z\1-\32]") then return true end
  end
  return false
end

local function top_level_rename(name, raw)
  if name == "" or has_empty_segment(name) then return RENAME_PREFIX .. string.gsub(raw, "%.", "_") end
  if byte(name, 1) == 95 or RESERVED[name] then return RENAME_PREFIX .. raw end
  return nil
end

local function is_space(c) return c == 32 or c == 9 or c == 10 or c == 13 end

-- One pass over the line: strings are skipped with plain finds, containers tracked on a stack. For each object the
-- members (key start, decoded name) are kept; a repeated name marks the earlier member for deletion (from its key
-- up to the next member's key, so its comma goes with it). A member with a too long name (D3) is pending until
-- the `,` or `}` that ends it in its object. Returns nil when the line is not one JSON object.
local function plan(s)
  local len = #s
  local i = 1
  while i <= len and is_space(byte(s, i)) do i = i + 1 end
  if byte(s, i) ~= 123 then return nil end
  local stack = {}
  local depth = 0
  local deletions, renames = {}, {}
  local expect_key = false
  -- D3: the member ends before `at` (trailing JSON whitespace left where it is).
  local function finish_long(frame, at)
    local pending = frame.pending
    frame.pending = nil
    local last = at - 1
    while last > pending[1] and is_space(byte(s, last)) do last = last - 1 end
    renames[#renames + 1] = { pending[1], last, '"' .. pending[2] .. '":' .. json_quote(sub(s, pending[1], last)) }
  end
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
      local frame = stack[depth]
      if frame and frame.object and expect_key then
        local raw = sub(s, i + 1, j - 1)
        local name = decode(raw)
        if #name > MAX_NAME_BYTES then
          frame.long = (frame.long or 0) + 1
          name = frame.long == 1 and LONG_NAME or LONG_NAME .. "_" .. frame.long
          frame.pending = { i, name }
        elseif depth == 1 then
          local renamed = top_level_rename(name, raw)
          if renamed then
            renames[#renames + 1] = { i + 1, j - 1, renamed }
            name = decode(renamed)
          end
        end
        local members = frame.members
        members[#members + 1] = i
        local earlier = frame.names[name]
        if earlier then deletions[#deletions + 1] = { frame, earlier } end
        frame.names[name] = #members
        expect_key = false
      end
      i = j + 1
    elseif c == 123 or c == 91 then
      depth = depth + 1
      stack[depth] = { object = c == 123, members = {}, names = {} }
      expect_key = c == 123
      i = i + 1
    elseif c == 125 or c == 93 then
      local frame = stack[depth]
      if not frame or frame.object ~= (c == 125) then return nil end
      if frame.pending then finish_long(frame, i) end
      stack[depth] = nil
      depth = depth - 1
      i = i + 1
      if depth == 0 then
        while i <= len and is_space(byte(s, i)) do i = i + 1 end
        if i <= len then return nil end
      end
    elseif c == 44 then
      local frame = stack[depth]
      if not frame then return nil end
      if frame.pending then finish_long(frame, i) end
      expect_key = frame.object
      i = i + 1
    else
      if depth == 0 then return nil end
      i = i + 1
    end
  end
  if depth ~= 0 then return nil end
  return deletions, renames
end

local function apply(s, deletions, renames)
  -- Edits as [from, to] byte spans with replacement text, applied left to right.
  local edits = {}
  for _, d in ipairs(deletions) do
    local frame, index = d[1], d[2]
    local from = frame.members[index]
    local to = frame.members[index + 1] - 1
    edits[#edits + 1] = { from, to, "" }
  end
  for _, r in ipairs(renames) do edits[#edits + 1] = { r[1], r[2], r[3] } end
  -- A deleted member's span starts where a D3 edit of the same member does and reaches further: it goes first,
  -- and the D3 edit inside it is skipped (the order is total, so the twin applies the same edits).
  table.sort(edits, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] > b[2]) end)
  local out, n, copied = {}, 0, 1
  for _, e in ipairs(edits) do
    if e[1] >= copied then
      n = n + 1; out[n] = sub(s, copied, e[1] - 1)
      n = n + 1; out[n] = e[3]
      copied = e[2] + 1
    end
  end
  n = n + 1; out[n] = sub(s, copied)
  return concat(out, "", 1, n)
end

function opensearch_document(tag, timestamp, record)
  local line = record["log"]
  if type(line) ~= "string" then return 0, timestamp, record end
  local deletions, renames = plan(line)
  if not deletions or (#deletions == 0 and #renames == 0) then return 0, timestamp, record end
  record["log"] = apply(line, deletions, renames)
  return 2, timestamp, record
end
