// SPDX-License-Identifier: GPL-2.0
/*
 * Basic-auth checks (basic_auth.h): crypt_r for bcrypt, a constant-time
 * compare, and a remembered digest of the last good password per user.
 */
#include "service/basic_auth.h"

#include <crypt.h>
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define DIGEST_LEN	32	/* SHA-256 */

struct auth_user {
	char *name, *hash;
	bool good;			/* digest holds the last accepted password's */
	unsigned char digest[DIGEST_LEN];
};

struct basic_auth {
	pthread_mutex_t lock;		/* the remembered digests */
	struct auth_user *u;
	unsigned int n;
	unsigned char key[32];		/* random: a digest says nothing outside this process */
};

static bool same(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return !d;
}

int basic_auth_new(struct basic_auth **out, const struct web_config *c)
{
	struct basic_auth *a = calloc(1, sizeof(*a));
	unsigned int i;

	*out = NULL;
	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	if (getrandom(a->key, sizeof(a->key), 0) != (ssize_t)sizeof(a->key)) {
		int e = -errno;

		basic_auth_free(a);
		return e ? e : -EIO;
	}
	a->u = calloc(c->nr_users ? c->nr_users : 1, sizeof(*a->u));
	if (!a->u) {
		basic_auth_free(a);
		return -ENOMEM;
	}
	for (i = 0; i < c->nr_users; i++, a->n++) {
		a->u[i].name = strdup(c->users[i].name);
		a->u[i].hash = strdup(c->users[i].hash);
		if (!a->u[i].name || !a->u[i].hash) {
			a->n++;
			basic_auth_free(a);
			return -ENOMEM;
		}
	}
	*out = a;
	return 0;
}

void basic_auth_free(struct basic_auth *a)
{
	unsigned int i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		free(a->u[i].name);
		free(a->u[i].hash);
	}
	free(a->u);
	pthread_mutex_destroy(&a->lock);
	explicit_bzero(a, sizeof(*a));
	free(a);
}

bool basic_auth_required(const struct basic_auth *a)
{
	return a && a->n;
}

/* HMAC-SHA-256(key, password): what is remembered of a good password. */
static int digest_of(const struct basic_auth *a, const char *password, unsigned char *out)
{
	return gnutls_hmac_fast(GNUTLS_MAC_SHA256, a->key, sizeof(a->key), password,
				strlen(password), out);
}

bool basic_auth_check(struct basic_auth *a, const char *user, const char *password)
{
	unsigned char d[DIGEST_LEN];
	struct auth_user *u = NULL;
	struct crypt_data *cd;
	const char *h;
	unsigned int i;
	bool ok, known;

	if (!basic_auth_required(a))
		return true;
	if (!user || !password)
		return false;
	for (i = 0; i < a->n; i++)
		if (!strcmp(a->u[i].name, user))
			u = &a->u[i];
	if (!u)
		return false;
	if (digest_of(a, password, d))
		return false;
	pthread_mutex_lock(&a->lock);
	known = u->good && same(u->digest, d, sizeof(d));
	pthread_mutex_unlock(&a->lock);
	if (known)
		return true;
	/* crypt_data is 32 KiB: not on a connection thread's stack */
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	h = crypt_r(password, u->hash, cd);
	ok = h && h[0] != '*' && strlen(h) == strlen(u->hash) && same(h, u->hash, strlen(h));
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	if (ok) {
		pthread_mutex_lock(&a->lock);
		memcpy(u->digest, d, sizeof(d));
		u->good = true;
		pthread_mutex_unlock(&a->lock);
	}
	explicit_bzero(d, sizeof(d));
	return ok;
}
