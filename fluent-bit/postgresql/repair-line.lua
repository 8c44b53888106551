-- The line-repair rule for Fluent Bit: runs on the raw line (record["log"], as the tail input joined it) BEFORE
-- the parser filter, so Fluent Bit's JSON parser and PostgreSQL see a line they accept, and everything else
-- reaches the database byte for byte. The same rule as server/core/src/event-line-repair.ts (init-job ingest);
-- both are held to fixtures/line-repairs.json byte for byte.
--
--   R1 invalid UTF-8         each maximal invalid subsequence -> U+FFFD (as WHATWG TextDecoder decodes)
--   R2 \u0000 escape         -> \ufffd (JSONB cannot hold U+0000)
--   R3 lone surrogate escape -> \ufffd (valid pairs stay)
--   R4 out-of-range number   -> a JSON string holding the literal (1e999 -> "1e999"); Fluent Bit 4.0 would turn
--                               1e999 into 1 and 4.2 would lose the whole event
--   R5 container at depth >= 1001 (top-level object = 1) -> a JSON string holding its exact text
--   R6 bare token that is not a JSON number -> a JSON string holding its text (1.e999 -> "1.e999", 1.0.0 -> "1.0.0")
--   R7 exponent without sign in a number without '.' -> '+' added (5e3 -> 5e+3, the same number to every reader)
--
-- R4, R6, R7 follow Fluent Bit 4.0.13's tokenizer (jsmn, src/flb_pack.c): a bare value is any run of printable
-- ASCII up to whitespace , ] } starting with '-' or a digit; with a '.' or a signed exponent it goes to strtod
-- (1.e999 -> inf, printed `inf`: OpenSearch refuses the chunk for ever), otherwise to strtoll (5e3 -> 5). Runs
-- are delimited exactly so; a run followed by ':' (a key, which jsmn refuses) is left alone.
--
-- R1 applies to every line; R2-R7 only to lines starting (after JSON whitespace) with '{'. Nothing to repair:
-- return code 0, so Fluent Bit keeps the record untouched. Otherwise only record["log"] is replaced; at this
-- point the record holds only strings, so the Lua<->msgpack round trip of code 2 loses nothing (it drops null
-- values and rounds big integers in parsed records, which is why this runs before the parser and not after).

local byte, sub, find, format = string.byte, string.sub, string.find, string.format
local concat, min = table.concat, math.min

local REPLACEMENT = "\239\191\189" -- U+FFFD in UTF-8
local MAX_DEPTH = 1000
-- Without an exponent a literal leaves the double range only with a run of at least 309 digits.
local LONG_RUN = 309

-- Decimal digits (no trailing zeros) and exponent E of the two rounding boundaries, value = 0.DIGITS x 10^E.
-- Correct rounding gives +-Infinity from 2^1024 - 2^970 up (halfway to 2^1024, ties to even), and 0 up to and
-- including 2^-1075 (halfway to the smallest subnormal, ties to even). Compared exactly, so the result never
-- depends on the strtod of the machine.
local OVERFLOW_DIGITS = "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"
local OVERFLOW_EXP = 309
local UNDERFLOW_DIGITS = "24703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125"
local UNDERFLOW_EXP = -323

-- JSON string escaping of a captured container's text (the spelling of JSON.stringify).
local QUOTE_ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\t"] = "\\t", ["\n"] = "\\n", ["\f"] = "\\f", ["\r"] = "\\r" }
for b = 0, 31 do
  local c = string.char(b)
  if not QUOTE_ESCAPES[c] then QUOTE_ESCAPES[c] = format("\\u%04x", b) end
end

local function json_quote(text)
  return '"' .. string.gsub(text, '[%z\1-\31"\\]', QUOTE_ESCAPES) .. '"'
end

-- R1: the WHATWG UTF-8 decoder's error handling, on bytes.
local function repair_utf8(s)
  local len = #s
  local out, n, copied = {}, 0, 1
  local i = 1
  while i <= len do
    local b = byte(s, i)
    while b < 0x80 do
      i = i + 1
      if i > len then break end
      b = byte(s, i)
    end
    if i > len then break end
    local need, lo, hi = 0, 0x80, 0xBF
    if b >= 0xC2 and b <= 0xDF then need = 1
    elseif b == 0xE0 then need, lo = 2, 0xA0
    elseif b == 0xED then need, hi = 2, 0x9F
    elseif b >= 0xE1 and b <= 0xEF then need = 2
    elseif b == 0xF0 then need, lo = 3, 0x90
    elseif b >= 0xF1 and b <= 0xF3 then need = 3
    elseif b == 0xF4 then need, hi = 3, 0x8F
    end
    local j, ok = i + 1, need > 0
    for _ = 1, need do
      local c = byte(s, j)
      if not c or c < lo or c > hi then ok = false; break end
      lo, hi = 0x80, 0xBF
      j = j + 1
    end
    if not ok then
      -- i .. j-1 is one maximal invalid subsequence; the byte at j (if any) starts afresh
      n = n + 1; out[n] = sub(s, copied, i - 1)
      n = n + 1; out[n] = REPLACEMENT
      copied = j
    end
    i = j
  end
  if n == 0 then return s end
  n = n + 1; out[n] = sub(s, copied)
  return concat(out, "", 1, n)
end

local function starts_with_object(s)
  local p = find(s, "[^ \t\r\n]")
  return p ~= nil and byte(s, p) == 123
end

-- Whether the line has a byte >= 0x80 (R1's only trigger). A pattern class costs several ns a byte, so this is one
-- tight, JIT-compiled byte loop.
local function has_high_byte(s)
  for i = 1, #s do
    if byte(s, i) >= 0x80 then return true end
  end
  return false
end

local function hex4(s, at)
  local h = sub(s, at, at + 3)
  if #h < 4 or find(h, "[^0-9a-fA-F]") then return -1 end
  return tonumber(h, 16)
end

-- Numeric order of 0.a and 0.b (digit strings without trailing zeros).
local function compare_digits(a, b)
  for k = 1, min(#a, #b) do
    local x, y = byte(a, k), byte(b, k)
    if x ~= y then return x < y and -1 or 1 end
  end
  if #a == #b then return 0 end
  return #a < #b and -1 or 1
end

-- Whether a bare token is a JSON number literal.
local function is_json_number(lit)
  local p = 1
  if byte(lit, 1) == 45 then p = 2 end
  local a, b = find(lit, "^%d+", p)
  if not a then return false end
  if b > a and byte(lit, a) == 48 then return false end
  p = b + 1
  if byte(lit, p) == 46 then
    local fa, fb = find(lit, "^%d+", p + 1)
    if not fa then return false end
    p = fb + 1
  end
  local c = byte(lit, p)
  if c == 101 or c == 69 then
    p = p + 1
    c = byte(lit, p)
    if c == 43 or c == 45 then p = p + 1 end
    local ea, eb = find(lit, "^%d+", p)
    if not ea then return false end
    p = eb + 1
  end
  return p > #lit
end

-- R4: a JSON number literal whose value a double cannot hold in magnitude.
local function out_of_range(lit)
  local p = 1
  if byte(lit, 1) == 45 then p = 2 end
  local a, b = find(lit, "^%d+", p)
  if not a then return false end
  if b > a and byte(lit, a) == 48 then return false end -- leading zero: not JSON
  local int, frac = sub(lit, a, b), ""
  p = b + 1
  if byte(lit, p) == 46 then
    local fa, fb = find(lit, "^%d+", p + 1)
    if not fa then return false end
    frac = sub(lit, fa, fb)
    p = fb + 1
  end
  local exp_digits, exp_negative = "0", false
  local c = byte(lit, p)
  if c == 101 or c == 69 then
    p = p + 1
    c = byte(lit, p)
    if c == 43 or c == 45 then exp_negative = c == 45; p = p + 1 end
    local ea, eb = find(lit, "^%d+", p)
    if not ea then return false end
    exp_digits = sub(lit, ea, eb)
    p = eb + 1
  end
  if p <= #lit then return false end
  local digits = int .. frac
  local first = find(digits, "[1-9]")
  if not first then return false end -- zero is representable, whatever its exponent
  local trailing = find(digits, "0*$")
  local mantissa = sub(digits, first, trailing - 1)
  local ez = find(exp_digits, "[1-9]")
  local exp_text = ez and sub(exp_digits, ez) or "0"
  -- A mantissa is at most a line long, so an exponent of 10 or more digits decides alone.
  if #exp_text >= 10 then return true end
  local e = (#int - (first - 1)) + (exp_negative and -tonumber(exp_text) or tonumber(exp_text))
  if e > OVERFLOW_EXP or (e == OVERFLOW_EXP and compare_digits(mantissa, OVERFLOW_DIGITS) >= 0) then return true end
  if e < UNDERFLOW_EXP or (e == UNDERFLOW_EXP and compare_digits(mantissa, UNDERFLOW_DIGITS) <= 0) then return true end
  return false
end

local function followed_by_colon(s, j)
  local c = byte(s, j)
  while c == 32 or c == 9 or c == 10 or c == 13 do
    j = j + 1
    c = byte(s, j)
  end
  return c == 58
end

-- R2-R7: one left-to-right pass over strings, escapes, numbers and depth. Unchanged spans are copied with sub();
-- a too-deep container collects its pieces apart and becomes one JSON string when it closes.
local function repair_json(s)
  local len = #s
  local out, n = {}, 0
  local cap, cn, cap_depth = nil, 0, -1
  local copied, depth, changed = 1, 0, false

  local function emit(piece)
    if cap then cn = cn + 1; cap[cn] = piece else n = n + 1; out[n] = piece end
  end
  local function flush_to(stop) -- copies s[copied .. stop-1]
    if stop > copied then emit(sub(s, copied, stop - 1)) end
    copied = stop
  end
  local function replace(from, to, text) -- replaces s[from .. to-1]
    flush_to(from)
    emit(text)
    copied = to
    changed = true
  end

  -- Strings are skipped with plain finds; both next positions are kept until passed, so each search covers new
  -- text only. Outside strings a byte loop (JIT-compiled) is cheaper than a pattern class.
  local next_quote, next_backslash = 0, 0
  local i = 1
  while i <= len do
    local c = byte(s, i)
    if c == 34 then
      i = i + 1
      while true do
        if next_backslash < i then next_backslash = find(s, "\\", i, true) or len + 1 end
        if next_quote < i then next_quote = find(s, '"', i, true) or len + 1 end
        if next_quote < next_backslash then i = next_quote + 1; break end
        i = next_backslash
        if i > len then break end
        local code = -1
        if byte(s, i + 1) == 117 then code = hex4(s, i + 2) end
        if code < 0 then
          i = i + 2 -- any other escape: the escaped byte is never structural
        elseif code == 0 then
          replace(i, i + 6, "\\ufffd"); i = i + 6
        elseif code >= 0xD800 and code <= 0xDBFF then
          local next_code = -1
          if byte(s, i + 6) == 92 and byte(s, i + 7) == 117 then next_code = hex4(s, i + 8) end
          if next_code >= 0xDC00 and next_code <= 0xDFFF then
            i = i + 12
          else
            replace(i, i + 6, "\\ufffd"); i = i + 6
          end
        elseif code >= 0xDC00 and code <= 0xDFFF then
          replace(i, i + 6, "\\ufffd"); i = i + 6
        else
          i = i + 6
        end
      end
    elseif c == 123 or c == 91 then
      if not cap and depth >= MAX_DEPTH then
        flush_to(i)
        cap, cn, cap_depth = {}, 0, depth
      end
      depth = depth + 1
      i = i + 1
    elseif c == 125 or c == 93 then
      if depth > 0 then depth = depth - 1 end
      i = i + 1
      if cap and depth == cap_depth then
        flush_to(i)
        local text = concat(cap, "", 1, cn)
        cap = nil
        n = n + 1; out[n] = json_quote(text)
        changed = true
      end
    elseif (c >= 48 and c <= 57) or c == 45 or c == 43 or c == 46 then
      -- a bare value as jsmn delimits it: printable ASCII up to whitespace , ] }. Runs starting with '+' or '.'
      -- are skipped whole but left alone (jsmn refuses them); inside a captured container nothing is repaired.
      local j = i + 1
      while j <= len do
        local d = byte(s, j)
        if d <= 32 or d >= 127 or d == 44 or d == 93 or d == 125 then break end
        j = j + 1
      end
      if not cap and c ~= 43 and c ~= 46 and not followed_by_colon(s, j) then
        local lit = sub(s, i, j - 1)
        if not is_json_number(lit) then
          replace(i, j, json_quote(lit))
        elseif (find(lit, "[eE]") or j - i >= LONG_RUN) and out_of_range(lit) then
          replace(i, j, '"' .. lit .. '"')
        elseif not find(lit, ".", 1, true) and find(lit, "[eE]%d") then
          replace(i, j, (string.gsub(lit, "([eE])(%d)", "%1+%2", 1)))
        end
      end
      i = j
    else
      i = i + 1
    end
  end
  if not changed then return s end
  flush_to(len + 1)
  -- a container still open at the end of the line: not JSON, its text stays as it is
  if cap then n = n + 1; out[n] = concat(cap, "", 1, cn) end
  return concat(out, "", 1, n)
end

-- R6 can apply to any bare value, so every line that starts with an object is scanned (strings are skipped with
-- plain finds).
local function repair_line(line)
  local s = has_high_byte(line) and repair_utf8(line) or line
  if starts_with_object(s) then s = repair_json(s) end
  return s
end

function repair_log(tag, timestamp, record)
  local line = record["log"]
  if type(line) ~= "string" then return 0, timestamp, record end
  local repaired = repair_line(line)
  if repaired == line then return 0, timestamp, record end
  record["log"] = repaired
  return 2, timestamp, record
end
