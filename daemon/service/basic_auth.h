/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Basic authentication against a web config's basic_auth_users (bcrypt
 * hashes, checked with libxcrypt's crypt_r).  bcrypt is slow on purpose
 * (about 70 ms at cost 10), and Prometheus sends the same credentials with
 * every scrape, so a user's last accepted password is remembered as a
 * SHA-256 of a per-process random key and the password (never the password
 * itself) until the users change: a repeat costs a hash, a wrong password
 * always pays bcrypt.
 */
#ifndef PMIPROF_DAEMON_BASIC_AUTH_H
#define PMIPROF_DAEMON_BASIC_AUTH_H

#include <stdbool.h>

#include "service/web_config.h"

struct basic_auth;

/* A copy of c's users (none: every request passes).  0 or -ENOMEM. */
int basic_auth_new(struct basic_auth **out, const struct web_config *c);
void basic_auth_free(struct basic_auth *a);
/* Whether a has users at all. */
bool basic_auth_required(const struct basic_auth *a);
/* user/password (NULL: none sent) against the users; thread-safe. */
bool basic_auth_check(struct basic_auth *a, const char *user, const char *password);

#endif /* PMIPROF_DAEMON_BASIC_AUTH_H */
