-- POST /token, grant_type=refresh_token, as devices do (public clients: no client
-- authentication). A refresh token works once and presenting it again revokes the device,
-- so every token is used once: each thread keeps a queue of its devices' tokens, request()
-- takes the oldest, response() queues the successor from the answer. The queue holds at
-- least one token per connection of the thread (one request in flight per connection).
-- Arguments: the token file (one per line) and the number of threads; thread i takes the
-- lines i, i + threads, ...
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "report.lua")

local queue, first, last = {}, 1, 0
local headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }

function init(args)
  -- args[0] is the URL wrk was given; the script's own arguments follow.
  local threads = tonumber(args[2])
  local line = 0
  for token in io.lines(args[1]) do
    if line % threads == thread_index then
      last = last + 1
      queue[last] = token
    end
    line = line + 1
  end
end

function request()
  -- An empty queue (chains lost to errors) sends a token that fails: counted as an error.
  local token = "exhausted"
  if first <= last then
    token = queue[first]
    queue[first] = nil
    first = first + 1
  end
  -- Refresh tokens are base64url: nothing to escape in the form.
  return wrk.format("POST", "/token", headers, "grant_type=refresh_token&refresh_token=" .. token)
end

function response(status, headers, body)
  -- Anything but 200 is an error; wrk itself counts the statuses above 399.
  if status ~= 200 and status < 400 then
    other_statuses = other_statuses + 1
  end
  local successor = body:match('"refresh_token"%s*:%s*"([^"]+)"')
  if successor then
    last = last + 1
    queue[last] = successor
  end
end
