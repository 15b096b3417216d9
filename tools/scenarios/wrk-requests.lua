-- SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
-- Bounds a wrk run in requests: wrk -t1 ... -s wrk-requests.lua URL -- N
-- stops after N responses instead of running for all of -d. One thread
-- (-t1) only: the count is per thread.
local limit, responses = 0, 0

function init(args)
	limit = tonumber(args[1]) or 0
	if limit < 1 then
		error("wrk-requests.lua: give the number of requests after --")
	end
end

function response(status, headers, body)
	responses = responses + 1
	if responses == limit then
		wrk.thread:stop()
		-- wrk's main thread sleeps for -d; SIGINT ends that sleep. One
		-- SIGINT is not always enough (about one run in four slept on), so
		-- a background loop repeats it until wrk has exited. Through popen,
		-- not os.execute: system() ignores SIGINT while it runs.
		io.popen("(while kill -INT $PPID; do sleep 0.2; done) >/dev/null 2>&1 &"):close()
	end
end
