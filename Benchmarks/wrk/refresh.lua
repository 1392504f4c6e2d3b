-- POST /token, grant_type=refresh_token, as devices do (public clients: no client
-- authentication). A refresh token works once and presenting it again revokes the device,
-- so every token is used once: each thread keeps a queue of its devices' tokens, request()
-- takes the oldest, response() queues the successor from the answer. The queue holds at
-- least one token per connection of the thread (one request in flight per connection).
-- Arguments: the token file (one per line) and the number of threads; thread i takes the
-- lines i, i + threads, ... A third, for tokens bound to a key (DPoP): a file of proofs by
-- that key, one per line, each sent once in a `DPoP` header, taken the same way.
dofile(debug.getinfo(1, "S").source:match("^@(.*/)") .. "report.lua")

local queue, first, last = {}, 1, 0
local proofs, next_proof = {}, 1
local headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }

-- The lines of `path` that are this thread's.
local function own_lines(path, threads)
  local lines, line = {}, 0
  for text in io.lines(path) do
    if line % threads == thread_index then
      lines[#lines + 1] = text
    end
    line = line + 1
  end
  return lines
end

function init(args)
  -- args[0] is the URL wrk was given; the script's own arguments follow.
  local threads = tonumber(args[2])
  queue = own_lines(args[1], threads)
  last = #queue
  if args[3] then
    proofs = own_lines(args[3], threads)
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
  -- Out of proofs, a bound token goes without one and fails: counted as an error.
  headers["DPoP"] = proofs[next_proof]
  next_proof = next_proof + 1
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
