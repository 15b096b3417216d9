-- SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
-- Bounds a wrk run in requests: wrk -t1 ... -s wrk-requests.lua URL -- N FILE
-- stops sending after N responses and creates FILE. wrk's main thread still
-- sleeps for all of -d: the caller sends wrk SIGINT once FILE exists (see
-- sc_load_cmd in lib.sh). One thread (-t1) only: the count is per thread.
local limit, marker, responses = 0, nil, 0

function init(args)
	limit = tonumber(args[1]) or 0
	marker = args[2]
	if limit < 1 or not marker then
		error("wrk-requests.lua: give the number of requests and a file after --")
	end
end

function response(status, headers, body)
	responses = responses + 1
	if responses == limit then
		wrk.thread:stop()
		io.open(marker, "w"):close()
	end
end
