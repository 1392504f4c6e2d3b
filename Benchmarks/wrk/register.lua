-- POST /register_device with a new email per request: <prefix>-<thread>-<counter>@<domain>.
-- Arguments: prefix, domain, and optionally a pace in milliseconds per request and
-- connection; with a pace, each request waits a random 0..2x pace, so that the connections
-- do not all fire at once and the mean rate is connections / pace.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "report.lua")

local prefix, domain
local counter = 0
local headers = { ["Content-Type"] = "application/json" }

function init(args)
  -- args[0] is the URL wrk was given; the script's own arguments follow.
  prefix, domain = args[1], args[2]
  local pace = tonumber(args[3] or "0")
  if pace > 0 then
    math.randomseed(os.time() + thread_index)
    delay = function() return math.floor(math.random() * 2 * pace + 0.5) end
  end
end

function request()
  counter = counter + 1
  local body = string.format(
    '{"email": "%s-%d-%d@%s", "device": {"name": "Bench phone", "platform": "android"}}',
    prefix, thread_index, counter, domain)
  return wrk.format("POST", "/register_device", headers, body)
end
