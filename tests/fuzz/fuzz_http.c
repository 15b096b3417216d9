// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libFuzzer harness for the /metrics request parser: the input is what a
 * client sent so far. Besides the sanitizers, it checks what http.h
 * promises: the parsed path is NUL-terminated within its buffer and holds
 * no '?', a route is one of the statuses the server sends, a parse never
 * reads past len (the copy has no terminator), and a prefix of a request
 * that parses is never taken for malformed when the whole one is fine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "output/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_request req;
	enum http_parse whole;
	char *copy;

	if (size > HTTP_MAX_REQUEST)
		return 0;
	/* An exact-size copy, so that ASan sees any read past len. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	whole = http_parse_request(copy, size, &req);
	if (whole == HTTP_PARSE_OK) {
		int status = http_route(&req);

		if (!memchr(req.path, '\0', sizeof(req.path)) || strchr(req.path, '?'))
			abort();
		if (status != 200 && status != 404 && status != 405 && status != 414)
			abort();
		/* Any shorter prefix was incomplete or already decided the same way. */
		for (size_t cut = 0; cut < size; cut += 1 + cut / 8)
			if (http_parse_request(copy, cut, &req) == HTTP_PARSE_BAD)
				abort();
	}
	http_accepts_openmetrics(copy, size);
	free(copy);
	return 0;
}
