// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tt-scenario's command line: the modes' names, --help, and the options
 * parsed and checked into a struct config. */

#include "scenario.h"

const char *const mode_names[] = {
	[MODE_FIN_SERVER] = "fin-server",
	[MODE_FIN_CLIENT] = "fin-client",
	[MODE_LINGER0_SERVER] = "linger0-server",
	[MODE_UNREAD_SERVER] = "unread-server",
	[MODE_LINGER0_CLIENT] = "linger0-client",
	[MODE_EXHAUST] = "exhaust",
	[MODE_HOLD] = "hold",
	[MODE_REFUSED] = "refused",
	[MODE_HALFCLOSE_LINGER0_SERVER] = "halfclose-linger0-server",
	[MODE_HALFCLOSE_SERVER] = "halfclose-server",
	[MODE_LINGER2_SERVER] = "linger2-server",
	[MODE_NOACCEPT] = "noaccept",
	[MODE_BURST] = "burst",
	[MODE_KEEPALIVE] = "keepalive",
	[MODE_CONNECTS] = "connects",
};

#define N_MODES (sizeof(mode_names) / sizeof(mode_names[0]))

static void usage(FILE *out)
{
	fprintf(out,
		"usage: tt-scenario server --addr ADDR --port PORT --count N --mode MODE [--ready FILE] [--name NAME]\n"
		"                          [--fastopen] [--backlog N] [--defer SECONDS] [--accept-delay MS]\n"
		"                          [--keep-listening] [--workers N] [--queued K] [--requests R]\n"
		"                          [--bytes B]\n"
		"       tt-scenario client --addr ADDR --port PORT --count N --mode MODE [--hold FILE] [--name NAME]\n"
		"                          [--fastopen] [--wait SECONDS] [--preopen K] [--requests R]\n"
		"                          [--give-up MS] [--bytes B] [--bind-port PORT] [--blocking]\n"
		"                          [--ask-again]\n"
		"modes: fin-server halfclose-server fin-client linger0-server unread-server linger0-client\n"
		"       halfclose-linger0-server linger2-server keepalive (--bytes B: each ping and\n"
		"       pong carries B bytes more, the same on both sides)\n"
		"       hold (both), noaccept (server only: listens, accepts nothing, closes its\n"
		"       listener on SIGUSR1), exhaust refused burst (client only; burst: COUNT\n"
		"       connects at once, each given --wait seconds; with --hold, kept\n"
		"       open once all are connected, until SIGUSR1; connects: COUNT connects one\n"
		"       after another, each closed once it ends, or after --give-up MS; bound\n"
		"       to PORT of the wildcard address first with --bind-port, blocking with\n"
		"       --blocking, the result asked of connect() again with --ask-again)\n");
}

static bool parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_addr(const char *s, long port, struct config *cfg)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&cfg->addr;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&cfg->addr;

	memset(&cfg->addr, 0, sizeof(cfg->addr));
	if (inet_pton(AF_INET, s, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)port);
		cfg->addr_len = sizeof(*sin);
		return true;
	}
	if (inet_pton(AF_INET6, s, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)port);
		cfg->addr_len = sizeof(*sin6);
		return true;
	}
	return false;
}

/* Returns 0, or 2 after printing why the command line is wrong. */
int parse_args(int argc, char **argv, struct config *cfg)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'n' },
		{ "mode", required_argument, NULL, 'm' },
		{ "ready", required_argument, NULL, 'r' },
		{ "hold", required_argument, NULL, 'H' },
		{ "name", required_argument, NULL, 'N' },
		{ "fastopen", no_argument, NULL, 'F' },
		{ "backlog", required_argument, NULL, 'b' },
		{ "defer", required_argument, NULL, 'd' },
		{ "wait", required_argument, NULL, 'w' },
		{ "accept-delay", required_argument, NULL, 'D' },
		{ "keep-listening", no_argument, NULL, 'k' },
		{ "workers", required_argument, NULL, 'W' },
		{ "queued", required_argument, NULL, 'Q' },
		{ "preopen", required_argument, NULL, 'P' },
		{ "requests", required_argument, NULL, 'R' },
		{ "give-up", required_argument, NULL, 'G' },
		{ "bytes", required_argument, NULL, 'B' },
		{ "bind-port", required_argument, NULL, 'I' },
		{ "blocking", no_argument, NULL, 'L' },
		{ "ask-again", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addr = NULL, *mode = NULL;
	long port = -1;
	size_t i;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "server")) {
		cfg->is_server = true;
	} else if (!strcmp(argv[1], "client")) {
		cfg->is_server = false;
	} else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		exit(0);
	} else {
		fprintf(stderr, "tt-scenario: unknown role '%s' (server or client)\n", argv[1]);
		return 2;
	}

	cfg->count = -1;
	cfg->backlog = LISTEN_BACKLOG;
	cfg->wait_s = 5;
	cfg->bind_port = -1;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			if (!parse_long(optarg, 1, 65535, &port)) {
				fprintf(stderr, "tt-scenario: invalid --port '%s'\n", optarg);
				return 2;
			}
			break;
		case 'n':
			if (!parse_long(optarg, 1, MAX_COUNT, &cfg->count)) {
				fprintf(stderr, "tt-scenario: invalid --count '%s' (1..%d)\n",
					optarg, MAX_COUNT);
				return 2;
			}
			break;
		case 'm':
			mode = optarg;
			break;
		case 'r':
			cfg->ready_path = optarg;
			break;
		case 'H':
			cfg->hold_path = optarg;
			break;
		case 'N':
			/* Named anew before any socket, as servers that set their
			 * process title do: tcptrace must follow the new name. */
			if (prctl(PR_SET_NAME, optarg, 0, 0, 0)) {
				fprintf(stderr, "tt-scenario: --name '%s': %s\n", optarg, strerror(errno));
				return 2;
			}
			break;
		case 'F':
			cfg->fastopen = true;
			break;
		case 'b':
			if (!parse_long(optarg, 1, 65535, &cfg->backlog)) {
				fprintf(stderr, "tt-scenario: invalid --backlog '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			if (!parse_long(optarg, 1, 60, &cfg->defer_s)) {
				fprintf(stderr, "tt-scenario: invalid --defer '%s' (1..60)\n", optarg);
				return 2;
			}
			break;
		case 'w':
			if (!parse_long(optarg, 1, 60, &cfg->wait_s)) {
				fprintf(stderr, "tt-scenario: invalid --wait '%s' (1..60)\n", optarg);
				return 2;
			}
			break;
		case 'D':
			if (!parse_long(optarg, 0, IO_TIMEOUT_MS / 2, &cfg->accept_delay_ms)) {
				fprintf(stderr, "tt-scenario: invalid --accept-delay '%s' (0..%d ms)\n",
					optarg, IO_TIMEOUT_MS / 2);
				return 2;
			}
			break;
		case 'k':
			cfg->keep_listening = true;
			break;
		case 'W':
		case 'Q':
		case 'P':
		case 'R': {
			long *field = c == 'W' ? &cfg->workers : c == 'Q' ? &cfg->queued :
				      c == 'P' ? &cfg->preopen : &cfg->requests;

			if (!parse_long(optarg, 1, MAX_COUNT, field)) {
				fprintf(stderr, "tt-scenario: invalid count '%s' (1..%d)\n", optarg,
					MAX_COUNT);
				return 2;
			}
			break;
		}
		case 'B':
			if (!parse_long(optarg, 1, MAX_BYTES, &cfg->bytes)) {
				fprintf(stderr, "tt-scenario: invalid --bytes '%s' (1..%ld)\n", optarg,
					MAX_BYTES);
				return 2;
			}
			break;
		case 'G':
			if (!parse_long(optarg, 1, 60000, &cfg->give_up_ms)) {
				fprintf(stderr, "tt-scenario: invalid --give-up '%s' (1..60000 ms)\n", optarg);
				return 2;
			}
			break;
		case 'I':
			if (!parse_long(optarg, 0, 65535, &cfg->bind_port)) {
				fprintf(stderr, "tt-scenario: invalid --bind-port '%s' (0..65535)\n", optarg);
				return 2;
			}
			break;
		case 'L':
			cfg->blocking = true;
			break;
		case 'A':
			cfg->ask_again = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tt-scenario: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!addr || port < 0 || cfg->count < 0 || !mode) {
		fprintf(stderr, "tt-scenario: --addr, --port, --count and --mode are required\n");
		return 2;
	}
	if (!parse_addr(addr, port, cfg)) {
		fprintf(stderr, "tt-scenario: invalid --addr '%s' (an IPv4 or IPv6 literal)\n", addr);
		return 2;
	}
	for (i = 0; i < N_MODES; i++)
		if (!strcmp(mode, mode_names[i]))
			break;
	if (i == N_MODES) {
		fprintf(stderr, "tt-scenario: unknown --mode '%s'\n", mode);
		return 2;
	}
	cfg->mode = (enum mode)i;
	if (!cfg->is_server && cfg->mode == MODE_NOACCEPT) {
		fprintf(stderr, "tt-scenario: mode noaccept is server only\n");
		return 2;
	}
	if (cfg->is_server && (cfg->mode == MODE_EXHAUST || cfg->mode == MODE_REFUSED ||
			       cfg->mode == MODE_BURST || cfg->mode == MODE_CONNECTS)) {
		fprintf(stderr, "tt-scenario: mode %s is client only (use a hold server as the peer)\n",
			mode);
		return 2;
	}
	if (cfg->ready_path && !cfg->is_server) {
		fprintf(stderr, "tt-scenario: --ready is a server option\n");
		return 2;
	}
	if (cfg->hold_path && (cfg->is_server || (cfg->mode != MODE_HOLD && cfg->mode != MODE_BURST))) {
		fprintf(stderr, "tt-scenario: --hold is for a hold or burst client\n");
		return 2;
	}
	if ((cfg->keep_listening || cfg->accept_delay_ms) && (!cfg->is_server || cfg->mode != MODE_HOLD)) {
		fprintf(stderr, "tt-scenario: --keep-listening and --accept-delay are for a hold server\n");
		return 2;
	}
	if ((cfg->workers && (!cfg->is_server || cfg->mode == MODE_HOLD || cfg->mode == MODE_NOACCEPT)) ||
	    (cfg->queued && !cfg->workers && !cfg->accept_delay_ms)) {
		fprintf(stderr, "tt-scenario: --workers is for a server of a sequential mode, "
				"--queued for one with workers or --accept-delay\n");
		return 2;
	}
	if (cfg->preopen && (cfg->is_server || cfg->preopen > cfg->count || cfg->mode == MODE_HOLD ||
			     cfg->mode == MODE_EXHAUST || cfg->mode == MODE_REFUSED || cfg->fastopen)) {
		fprintf(stderr, "tt-scenario: --preopen is for a client of a sequential mode, at most "
				"--count\n");
		return 2;
	}
	if (cfg->give_up_ms && cfg->mode != MODE_CONNECTS) {
		fprintf(stderr, "tt-scenario: --give-up is for mode connects\n");
		return 2;
	}
	if ((cfg->bind_port >= 0 || cfg->blocking || cfg->ask_again) && cfg->mode != MODE_CONNECTS) {
		fprintf(stderr, "tt-scenario: --bind-port, --blocking and --ask-again are for mode "
				"connects\n");
		return 2;
	}
	if (cfg->blocking && (cfg->ask_again || cfg->give_up_ms)) {
		fprintf(stderr, "tt-scenario: --blocking waits for connect() itself: no --ask-again "
				"or --give-up\n");
		return 2;
	}
	if (!cfg->give_up_ms)
		cfg->give_up_ms = IO_TIMEOUT_MS;
	if (cfg->mode == MODE_KEEPALIVE && !cfg->requests)
		cfg->requests = 1;
	if ((cfg->requests || cfg->bytes) && cfg->mode != MODE_KEEPALIVE) {
		fprintf(stderr, "tt-scenario: --requests and --bytes are for mode keepalive\n");
		return 2;
	}
	return 0;
}
