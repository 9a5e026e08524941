#include "CHTTPShims.h"
#include <string.h>

/* Leaves the URL and query arguments percent-encoded: libmicrohttpd would otherwise decode them
 * in place, and a "%00" would end the C string early ("/v1/subscribers/a%00b" read as "a").
 * The Swift side decodes each path segment and argument and refuses NUL. */
static size_t bk_keep_escaped(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls;
    (void)connection;
    return strlen(s);
}

struct MHD_Daemon *bk_mhd_start(uint16_t port, uint32_t address, unsigned int connection_limit,
                                unsigned int connection_timeout, unsigned int thread_pool_size,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls) {
    static struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = address;
    unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    (void)thread_pool_size; /* one epoll thread measured fastest here; handlers run off it */
    return MHD_start_daemon(flags, port, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
                            MHD_OPTION_UNESCAPE_CALLBACK, bk_keep_escaped, NULL,
                            MHD_OPTION_END);
}

uint16_t bk_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
