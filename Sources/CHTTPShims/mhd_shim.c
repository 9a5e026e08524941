#include "CHTTPShims.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Connections per client address (IPv4), counted by this shim rather than with
 * MHD_OPTION_PER_IP_CONNECTION_LIMIT: libmicrohttpd 0.9.75 aborted the process ("Failed to
 * remove FD from epoll set") when that option turned a connection away. A connection is counted
 * when libmicrohttpd starts it and uncounted when it closes; the accept policy refuses a new one
 * from an address at its limit before libmicrohttpd takes it on. Addresses live in a small
 * open-addressed table; one that finds no slot is let in (the table only fills with more than
 * BK_IP_SLOTS busy addresses at once). */
#define BK_IP_SLOTS 8192
#define BK_IP_PROBES 64

struct bk_ip_limits {
    pthread_mutex_t lock;
    unsigned int limit;
    uint32_t address[BK_IP_SLOTS];
    unsigned int count[BK_IP_SLOTS];
};

/* The slot holding `ip` (count > 0), or -1; `free_slot` gets the first empty one probed. */
static int bk_ip_find(struct bk_ip_limits *limits, uint32_t ip, int *free_slot) {
    unsigned int start = (ip * 2654435761u) % BK_IP_SLOTS;
    *free_slot = -1;
    for (unsigned int n = 0; n < BK_IP_PROBES; n++) {
        unsigned int slot = (start + n) % BK_IP_SLOTS;
        if (limits->count[slot] > 0 && limits->address[slot] == ip) return (int)slot;
        if (limits->count[slot] == 0 && *free_slot < 0) *free_slot = (int)slot;
    }
    return -1;
}

static enum MHD_Result bk_accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
    struct bk_ip_limits *limits = cls;
    if (limits == NULL || addr == NULL || addrlen < (socklen_t)sizeof(struct sockaddr_in) || addr->sa_family != AF_INET) return MHD_YES;
    uint32_t ip = ((const struct sockaddr_in *)addr)->sin_addr.s_addr;
    int free_slot;
    pthread_mutex_lock(&limits->lock);
    int slot = bk_ip_find(limits, ip, &free_slot);
    enum MHD_Result allowed = (slot >= 0 && limits->count[slot] >= limits->limit) ? MHD_NO : MHD_YES;
    pthread_mutex_unlock(&limits->lock);
    return allowed;
}

static void bk_notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                                 enum MHD_ConnectionNotificationCode code) {
    struct bk_ip_limits *limits = cls;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (limits == NULL || info == NULL || info->client_addr == NULL || info->client_addr->sa_family != AF_INET) return;
    uint32_t ip = ((const struct sockaddr_in *)info->client_addr)->sin_addr.s_addr;
    int free_slot;
    pthread_mutex_lock(&limits->lock);
    int slot = bk_ip_find(limits, ip, &free_slot);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        if (slot < 0 && free_slot >= 0) {
            slot = free_slot;
            limits->address[slot] = ip;
        }
        if (slot >= 0) {
            limits->count[slot] += 1;
            *socket_context = (void *)1; /* counted */
        }
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context != NULL && slot >= 0) {
        limits->count[slot] -= 1;
        *socket_context = NULL;
    }
    pthread_mutex_unlock(&limits->lock);
}

void bk_mhd_free_limits(void *limits) {
    if (limits == NULL) return;
    pthread_mutex_destroy(&((struct bk_ip_limits *)limits)->lock);
    free(limits);
}

/* Leaves the URL and query arguments percent-encoded: libmicrohttpd would otherwise decode them
 * in place, and a "%00" would end the C string early ("/v1/subscribers/a%00b" read as "a").
 * The Swift side decodes each path segment and argument and refuses NUL. */
static size_t bk_keep_escaped(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls;
    (void)connection;
    return strlen(s);
}

struct MHD_Daemon *bk_mhd_start(uint16_t port, uint32_t address, unsigned int connection_limit,
                                unsigned int connection_timeout, unsigned int per_ip_limit, void **limits_out,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls) {
    static struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = address;
    unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    /* One epoll thread measured fastest here; handlers run off it. */
    struct bk_ip_limits *limits = NULL;
    if (per_ip_limit > 0) {
        limits = calloc(1, sizeof *limits);
        if (limits == NULL) return NULL;
        pthread_mutex_init(&limits->lock, NULL);
        limits->limit = per_ip_limit;
    }
    *limits_out = limits;
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, port, limits ? bk_accept_policy : NULL, limits, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
                            MHD_OPTION_UNESCAPE_CALLBACK, bk_keep_escaped, NULL,
                            MHD_OPTION_NOTIFY_CONNECTION, bk_notify_connection, limits,
                            MHD_OPTION_END);
    if (daemon == NULL) {
        bk_mhd_free_limits(limits);
        *limits_out = NULL;
    }
    return daemon;
}

uint16_t bk_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
