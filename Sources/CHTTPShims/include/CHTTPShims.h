#ifndef BUZZKIT_CHTTPSHIMS_H
#define BUZZKIT_CHTTPSHIMS_H
#include <stdint.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* Non-variadic wrappers around libmicrohttpd's variadic functions. */

/** The shim's state for one daemon: `per_ip_limit` > 0 caps the connections one client
 *  address holds; `request_timeout` > 0 closes a connection whose request (headers and body)
 *  has not all arrived that many seconds after the connection began waiting for it. NULL when
 *  it cannot be made. Free it with bk_mhd_free_shim after MHD_stop_daemon. */
void *bk_mhd_shim_create(unsigned int per_ip_limit, unsigned int request_timeout);

/** Starts an epoll daemon with its own polling thread, suspend/resume, and a completion
 *  callback, bound to `address` (IPv4, network order) and `port` (0 = any free port), with the
 *  limits of `shim` (from bk_mhd_shim_create). */
struct MHD_Daemon *bk_mhd_start(uint16_t port, uint32_t address, unsigned int connection_limit,
                                unsigned int connection_timeout, void *shim, MHD_AccessHandlerCallback handler,
                                void *handler_cls, MHD_RequestCompletedCallback completed, void *completed_cls);

/** The connection's request is all in (headers and body): its deadline clock stops. */
void bk_mhd_request_received(void *shim, struct MHD_Connection *connection);

/** The connection's response is done: the deadline clock starts again for its next request. */
void bk_mhd_request_done(void *shim, struct MHD_Connection *connection);

/** Stops the watchdog and frees what bk_mhd_start allocated (NULL is fine). */
void bk_mhd_free_shim(void *shim);

/** The port the daemon is bound to. */
uint16_t bk_mhd_bound_port(struct MHD_Daemon *daemon);

#endif
