-- wrk script of the benchmark (bench/run.ts): replays requests stamped beforehand, read from a file,
-- and prints one JSON line of results (counts, latency percentiles, statuses other than 200).
--   wrk -t1 -c16 -d3s -s bench/replay.lua http://127.0.0.1:PORT -- FILE once|cycle THREADS
-- FILE: one request a line, tab-separated: path, X-Stamp value, body head, body tail; the body is
-- head .. FILE.shared .. tail when the line has a fifth field "shared" (a 400 KiB interface is read
-- once, not once a request). "once" sends each line at most once (every request a new activity) and
-- counts the requests past the last line; "cycle" sends the lines round and round (resubmission).

local threads = {}

-- wrk calls setup (main state) then init (the thread's state) for each thread in turn.
function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

local function read_all(path)
  local file = assert(io.open(path, "rb"))
  local text = file:read("*a")
  file:close()
  return text
end

local requests = {}
local shared_body = nil
local index = 0
local cycle = false
overrun = 0
statuses = {}
sample = ""

function init(args)
  local path = args[1]
  cycle = args[2] == "cycle"
  local mine, count = thread_index, tonumber(args[3] or "1")
  local line_number = 0
  for line in read_all(path):gmatch("[^\n]+") do
    -- Threads take every count-th line, so no two threads send the same body.
    if line_number % count == mine then
      local route, stamp, head, tail, kind = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t?([^\t]*)$")
      local headers = { ["Content-Type"] = "application/json", ["X-Stamp"] = stamp }
      if kind == "shared" then
        shared_body = shared_body or read_all(path .. ".shared")
        table.insert(requests, { route = route, headers = headers, head = head, tail = tail })
      else
        -- Small bodies are formatted once, here, so the load generator does little per request.
        table.insert(requests, { text = wrk.format("POST", route, headers, head .. tail) })
      end
    end
    line_number = line_number + 1
  end
end

function request()
  index = index + 1
  if index > #requests then
    index = 1
    if not cycle then overrun = overrun + 1 end
  end
  local r = requests[index]
  if r.text then return r.text end
  return wrk.format("POST", r.route, r.headers, r.head .. shared_body .. r.tail)
end

function response(status, headers, body)
  if status ~= 200 then
    statuses[tostring(status)] = (statuses[tostring(status)] or 0) + 1
    if sample == "" and body then sample = body:sub(1, 300) end
  end
end

local function json_string(text)
  return '"' .. text:gsub('[%c"\\]', function(c) return string.format("\\u%04x", c:byte()) end) .. '"'
end

function done(summary, latency, requests_)
  local overruns, sample_text, status_parts, merged = 0, "", {}, {}
  for _, thread in ipairs(threads) do
    overruns = overruns + (thread:get("overrun") or 0)
    local s = thread:get("sample")
    if sample_text == "" and s then sample_text = s end
    for status, n in pairs(thread:get("statuses") or {}) do merged[status] = (merged[status] or 0) + n end
  end
  for status, n in pairs(merged) do table.insert(status_parts, string.format('"%s":%d', status, n)) end
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"durationUs":%d,"connectErrors":%d,"readErrors":%d,"writeErrors":%d,' ..
      '"timeouts":%d,"non2xx":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"maxUs":%d,"overrun":%d,"statuses":{%s},"sample":%s}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    overruns, table.concat(status_parts, ","), json_string(sample_text)))
end
