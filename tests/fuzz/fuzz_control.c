/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_control.c: libFuzzer harness for what a user or a client hands the control plane.
 *
 * Built twice:
 *  - FUZZ_CONFIG: the input is a whole configuration file, written to a private folder and
 *    loaded with rps_config_load_file(), as each reload does (read until two reads agree,
 *    the StrictModes walk, the parse). Checks: a refused file names FILE:LINE (or FILE:) and
 *    leaves the config all zero; an accepted one answers rps_config_value() and
 *    rps_config_queue_map() for every setting and queue; a secret's value (the text after
 *    "hash_seed"/"rss_key" at the start of a line, of a section header or after its ']')
 *    never appears in the error.
 *  - FUZZ_PARAMS: the input is one telemetry parameter string or command-line value, fed to
 *    every parser that takes one: rps_number_list_parse() (the /rps/ commands' "Q,FIRST"),
 *    rps_number_parse(), rps_listen_parse() (--metrics), rps_lcoreset_parse() and
 *    rps_lcoreset_parse_list() (maps, --rx-lcores). Checks: results within their contracts
 *    (counts, ranges, an error text on refusal, an untouched output).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rps_config.h"
#include "rps_listen.h"
#include "rps_map.h"
#include "rps_number.h"
#include "rps_settings.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_CONFIG
static char dir[64], path[96];
static struct rps_config cfg;

/* At a normal exit (the time is up): the folder and its file go (a crash leaves them). */
static void
remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/rps-fuzz-conf-XXXXXX");
	if (mkdtemp(dir) == NULL) /* 0700: the StrictModes walk finds it private */
		abort();
	snprintf(path, sizeof(path), "%s/rps.conf", dir);
	atexit(remove_dir);
	return 0;
}

static int
all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i] != 0)
			return 0;
	return 1;
}

#define CANARY "Zq9QxWv7"

static size_t
skip_blanks(const uint8_t *data, size_t size, size_t i)
{
	while (i < size && (data[i] == ' ' || data[i] == '\t'))
		i++;
	return i;
}

/* The end of a secret's key at @p at and the separators after it, or 0: the key, then a
 * separator or not ("hash_seed0x12 = 3" is a value typed without its '=' too), and a value. */
static size_t
secret_at(const uint8_t *data, size_t size, size_t at)
{
	static const char *const keys[] = { "hash_seed", "rss_key" };

	for (unsigned int k = 0; k < 2; k++) {
		size_t kl = strlen(keys[k]), v = at + kl;

		if (at > size || size - at <= kl || memcmp(data + at, keys[k], kl) != 0 ||
		    data[v] == '\n' || data[v] == 0)
			continue;
		while (v < size && strchr(" \t=:", data[v]) != NULL && data[v] != 0)
			v++;
		return v;
	}
	return 0;
}

/*
 * @p data with CANARY put at the start of each secret's value ("hash_seed = X", "rss_key: X",
 * "hash_seedX"), where the key is the first word of its line, of a section header
 * ("[hash_seed = X]", "[ rss_key: X"), or the first after a header's ']' ("[map] hash_seed
 * = X"): if the canary is ever in an error message, a value was quoted. At most three a line.
 */
static size_t
with_canary(const uint8_t *data, size_t size, char *out)
{
	size_t o = 0, i = 0;

	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		const size_t eol = nl != NULL ? (size_t)(nl - data) : size;
		size_t at[3], nat = 0, ws = skip_blanks(data, size, i);

		at[nat++] = ws;
		if (ws < eol && data[ws] == '[') {
			const uint8_t *close = memchr(data + ws, ']', eol - ws);

			at[nat++] = skip_blanks(data, size, ws + 1);
			if (close != NULL)
				at[nat++] = skip_blanks(data, size, (size_t)(close - data) + 1);
		}
		for (size_t a = 0; a < nat; a++) {
			size_t v = at[a] >= i && at[a] < eol ? secret_at(data, size, at[a]) : 0;

			if (v == 0)
				continue;
			memcpy(out + o, data + i, v - i);
			o += v - i;
			memcpy(out + o, CANARY, strlen(CANARY));
			o += strlen(CANARY);
			i = v;
		}
		while (i < size && data[i] != '\n')
			out[o++] = (char)data[i++];
		if (i < size)
			out[o++] = (char)data[i++];
	}
	return o;
}

static int
load(const void *data, size_t size, char *err, size_t err_len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	err[0] = '\0';
	return rps_config_load_file(path, &cfg, NULL, err, err_len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	char *marked;
	size_t n;
	int rc;

	if (size > 64 * 1024)
		return 0;
	rc = load(data, size, err, sizeof(err));
	if (rc < 0 && (strncmp(err, path, strlen(path)) != 0 || !all_zero(&cfg, sizeof(cfg)))) {
		fprintf(stderr, "refused (%d) without FILE: or with state left: %s\n", rc, err);
		abort();
	}
	for (unsigned int i = 0; rc == 0 && i < RPS_SET_NB; i++) {
		int64_t v;

		(void)rps_config_value(&cfg, (enum rps_setting_id)i, &v);
	}
	for (unsigned int q = 0; rc == 0 && q <= RPS_CONFIG_MAX_QUEUES; q++) {
		const char *t = NULL;
		const struct rps_lcoreset *s = rps_config_queue_map(&cfg, q, &t);

		if (s != NULL && (t == NULL || t[0] == '\0')) {
			fprintf(stderr, "queue %u: a map without its text\n", q);
			abort();
		}
	}
	/* the same file with a canary in every secret's value: never in the message (unless
	 * the input has it already: libFuzzer learns it from the strstr() below) */
	if (memmem(data, size, CANARY, strlen(CANARY)) != NULL)
		return 0;
	marked = malloc(size + 3 * strlen(CANARY) * (size + 1) + 1); /* 3 a line at most */
	if (marked == NULL)
		abort();
	n = with_canary(data, size, marked);
	if (load(marked, n, err, sizeof(err)) < 0 && strstr(err, CANARY) != NULL) {
		fprintf(stderr, "a secret's value in the error: %s\n", err);
		abort();
	}
	free(marked);
	return 0;
}
#endif /* FUZZ_CONFIG */

#ifdef FUZZ_PARAMS
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256], why[256];
	struct rps_listen l;
	struct rps_lcoreset set;
	uint64_t v[4], x;
	unsigned int bad;
	int n;

	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0'; /* a string ends at its first NUL, as a C caller's would */

	n = rps_number_list_parse(s, UINT32_MAX, v, 2);
	if (n < -EINVAL || n > 2 || (n < 0 && n != -EINVAL) || (n == 0 && s[0] != '\0'))
		abort();
	for (int i = 0; i < n; i++)
		if (v[i] > UINT32_MAX)
			abort();
	n = rps_number_parse(s, 1, 512, &x);
	if ((n == 0 && (x < 1 || x > 512)) || (n != 0 && n != -EINVAL && n != -ERANGE))
		abort();

	memset(&l, 0x5a, sizeof(l));
	why[0] = '\0';
	n = rps_listen_parse(s, &l, why, sizeof(why));
	if (n == 0 && l.on && l.text[0] == '\0')
		abort();
	if (n != 0 && (n != -EINVAL || why[0] == '\0' || l.on != 0x5a5a5a5a))
		abort();

	n = rps_lcoreset_parse(s, &set, &bad);
	if (n != 0 && n != -EINVAL && n != -ERANGE)
		abort();
	n = rps_lcoreset_parse_list(s, &set, &bad);
	if (n != 0 && n != -EINVAL && n != -ERANGE)
		abort();
	return 0;
}
#endif /* FUZZ_PARAMS */
