-- Loaded by every benchmark script. wrk counts only statuses above 399 as errors, so each
-- thread also counts the other answers outside 2xx; done() prints one machine-readable
-- line (latencies in microseconds) that Benchmarks/loadgen.py parses.

local threads = {}
other_statuses = 0

function setup(thread)
  -- Scripts that hand each thread its own data (refresh.lua) need the thread's number.
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

function response(status, headers, body)
  if status < 200 or (status >= 300 and status < 400) then
    other_statuses = other_statuses + 1
  end
end

function done(summary, latency, requests)
  local other = 0
  for _, thread in ipairs(threads) do
    other = other + thread:get("other_statuses")
  end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests": %d, "duration_us": %d, "socket_errors": %d, "status_errors": %d, ' ..
    '"p50_us": %d, "p99_us": %d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.timeout, e.status + other,
    latency:percentile(50), latency:percentile(99)))
end
