#ifndef BUZZKIT_CHTTPSHIMS_H
#define BUZZKIT_CHTTPSHIMS_H
#include <stdint.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* Non-variadic wrappers around libmicrohttpd's variadic functions. */

/** Starts an epoll daemon with its own polling thread, suspend/resume, and a completion
 *  callback, bound to `address` (IPv4, network order) and `port` (0 = any free port).
 *  `per_ip_limit` > 0 caps the connections one client address holds; `*limits_out` then gets
 *  the counters, to free with bk_mhd_free_limits after MHD_stop_daemon. */
struct MHD_Daemon *bk_mhd_start(uint16_t port, uint32_t address, unsigned int connection_limit,
                                unsigned int connection_timeout, unsigned int per_ip_limit, void **limits_out,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls);

/** Frees what bk_mhd_start allocated for the per-address cap (NULL is fine). */
void bk_mhd_free_limits(void *limits);

/** The port the daemon is bound to. */
uint16_t bk_mhd_bound_port(struct MHD_Daemon *daemon);

#endif
