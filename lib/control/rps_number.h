/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rps_number.h: the one number syntax of the command line and the configuration file.
 *
 * A number is decimal ("65536") or hex with a 0x/0X prefix ("0x10000"), nothing else: no
 * sign, no blank before or after, and no leading zero on a decimal number ("065536" would be
 * octal to strtoul(0) and decimal to a reader: refused in both places rather than guessed).
 * "0" itself is fine. The caller names the option or FILE:LINE in its message.
 *
 * Pure, thread-safe.
 */
#ifndef RPS_NUMBER_H
#define RPS_NUMBER_H

#include <stdint.h>

/**
 * Parse @p s as a number in [lo, hi] (hi < 2^60).
 * @return 0 and *out; -EINVAL when @p s is not a number in the syntax above (empty, blanks,
 *   sign, leading zero, stray characters); -ERANGE when it is one but outside [lo, hi].
 */
int rps_number_parse(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/**
 * Parse "A[,B...]", a telemetry command's parameters: up to @p max numbers in [0, hi], each in
 * the syntax above, separated by single commas (no blanks, no empty item).
 * @return how many (0 for NULL or ""), or -EINVAL (a bad number, an empty item, more than
 *   @p max, an item of 32 characters or more).
 */
int rps_number_list_parse(const char *s, uint64_t hi, uint64_t *v, int max);

/** What rps_number_parse() accepts, for error messages. */
#define RPS_NUMBER_SYNTAX "decimal without a leading zero, or 0x hex"

#endif /* RPS_NUMBER_H */
