// SPDX-License-Identifier: GPL-2.0
/*
 * epoll_shim.so: give an unmodified epoll server the per-context busy-poll
 * settings of seed 001's benchmark, the way its authors patched memcached,
 * from environment variables, with LD_PRELOAD:
 *
 *   EPOLL_BUSY_POLL_USECS=N    EPIOCSPARAMS busy_poll_usecs
 *   EPOLL_BUSY_POLL_BUDGET=N   EPIOCSPARAMS busy_poll_budget (default 64)
 *   EPOLL_PREFER_BUSY_POLL=0|1 EPIOCSPARAMS prefer_busy_poll
 *   EPOLL_FULLBUSY=1           every blocking epoll_wait() becomes a loop of
 *                              1 ms ones (the seed's "fullbusy": each busy
 *                              polls, the application never sleeps long)
 *
 * Each epoll instance the program creates gets the settings right after
 * epoll_create*(); a failing ioctl is fatal, so a kernel without
 * EPIOCSPARAMS cannot pass for one that has it. Without any of the
 * variables the shim changes nothing.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>
#include <linux/types.h>

#ifndef EPIOCSPARAMS
struct epoll_params {
	__u32 busy_poll_usecs;
	__u16 busy_poll_budget;
	__u8 prefer_busy_poll;
	__u8 __pad;
};
#define EPOLL_IOC_TYPE 0x8A
#define EPIOCSPARAMS _IOW(EPOLL_IOC_TYPE, 0x01, struct epoll_params)
#endif

static long env_num(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long n;

	if (!v || !*v)
		return def;
	n = strtol(v, &end, 0);
	if (*end || n < 0) {
		fprintf(stderr, "epoll_shim: %s=%s is not a number\n", name, v);
		exit(2);
	}
	return n;
}

static int set_params(int epfd)
{
	struct epoll_params p = {};

	if (epfd < 0 || (!getenv("EPOLL_BUSY_POLL_USECS") &&
			 !getenv("EPOLL_PREFER_BUSY_POLL")))
		return epfd;
	p.busy_poll_usecs = env_num("EPOLL_BUSY_POLL_USECS", 0);
	p.busy_poll_budget = env_num("EPOLL_BUSY_POLL_BUDGET", 64);
	p.prefer_busy_poll = env_num("EPOLL_PREFER_BUSY_POLL", 0);
	if (ioctl(epfd, EPIOCSPARAMS, &p)) {
		fprintf(stderr, "epoll_shim: EPIOCSPARAMS usecs %u budget %u prefer %u: %s\n",
			p.busy_poll_usecs, p.busy_poll_budget, p.prefer_busy_poll,
			strerror(errno));
		exit(2);
	}
	fprintf(stderr, "epoll_shim: epoll fd %d: busy_poll_usecs %u budget %u prefer_busy_poll %u%s\n",
		epfd, p.busy_poll_usecs, p.busy_poll_budget, p.prefer_busy_poll,
		env_num("EPOLL_FULLBUSY", 0) ? ", full busy" : "");
	return epfd;
}

int epoll_create(int size)
{
	static int (*real)(int);

	if (!real)
		real = dlsym(RTLD_NEXT, "epoll_create");
	return set_params(real(size));
}

int epoll_create1(int flags)
{
	static int (*real)(int);

	if (!real)
		real = dlsym(RTLD_NEXT, "epoll_create1");
	return set_params(real(flags));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * fullbusy: the seed changed memcached's non-blocking epoll_wait() calls
 * into calls with a 1 ms timeout, so that each one busy polls for up to
 * busy_poll_usecs (a call with timeout 0 returns before ep_busy_loop()).
 * Here every blocking wait becomes a loop of 1 ms waits until an event or
 * the caller's own timeout: the application never sleeps for longer.
 */
int epoll_wait(int epfd, struct epoll_event *ev, int maxevents, int timeout)
{
	static int (*real)(int, struct epoll_event *, int, int);
	static int fullbusy = -1;
	long long end, left;
	int n;

	if (!real)
		real = dlsym(RTLD_NEXT, "epoll_wait");
	if (fullbusy < 0) {
		fullbusy = env_num("EPOLL_FULLBUSY", 0) != 0;
		if (fullbusy)
			fprintf(stderr, "epoll_shim: epoll_wait() loops with 1 ms timeouts\n");
	}
	if (!fullbusy || timeout == 0)
		return real(epfd, ev, maxevents, timeout);
	end = timeout > 0 ? now_ms() + timeout : 0;
	do {
		left = end ? end - now_ms() : 1;
		n = real(epfd, ev, maxevents, left < 1 ? 0 : 1);
	} while (n == 0 && (!end || now_ms() < end));
	return n;
}

/* sockperf's epoll handler may use epoll_pwait(): refuse to measure then */
int epoll_pwait(int epfd, struct epoll_event *ev, int maxevents, int timeout,
		const sigset_t *sigmask)
{
	static int (*real)(int, struct epoll_event *, int, int, const sigset_t *);

	if (!real)
		real = dlsym(RTLD_NEXT, "epoll_pwait");
	if (env_num("EPOLL_FULLBUSY", 0)) {
		fprintf(stderr, "epoll_shim: epoll_pwait() is not made full busy\n");
		exit(2);
	}
	return real(epfd, ev, maxevents, timeout, sigmask);
}
