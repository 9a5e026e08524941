#include "CHTTPShims.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* What the shim keeps beside libmicrohttpd, one per daemon.
 *
 * Connections per client address (IPv4) are counted here rather than with
 * MHD_OPTION_PER_IP_CONNECTION_LIMIT: libmicrohttpd 0.9.75 aborted the process ("Failed to
 * remove FD from epoll set") when that option turned a connection away. A connection is counted
 * when libmicrohttpd starts it and uncounted when it closes; the accept policy refuses a new one
 * from an address at its limit before libmicrohttpd takes it on. Addresses live in a small
 * open-addressed table; one that finds no slot is let in (the table only fills with more than
 * BK_IP_SLOTS busy addresses at once).
 *
 * The request deadline: libmicrohttpd's own timeout is an idle timeout that any byte resets, so
 * a client sending one header byte every few seconds (slowloris) would hold its connection for
 * ever. Every connection is on a list with the moment it began waiting for a request (when it
 * opened, or when its last response was done); the clock stops once a request's headers and
 * body are all in. A watchdog thread shuts down (shutdown(2), never close) the socket of any
 * connection whose request took longer than the deadline, and libmicrohttpd then closes it as
 * a connection the client dropped. libmicrohttpd reports a connection closed before it closes
 * its socket, and the list is changed under the same lock, so the watchdog never touches a
 * descriptor already reused. */
#define BK_IP_SLOTS 8192
#define BK_IP_PROBES 64

struct bk_connection {
    struct bk_connection *prev, *next;
    int fd;
    uint32_t ip;
    int counted;
    double waiting_since; /* < 0 while no request is being received */
};

struct bk_shim {
    pthread_mutex_t lock;
    unsigned int limit;
    uint32_t address[BK_IP_SLOTS];
    unsigned int count[BK_IP_SLOTS];
    struct bk_connection head; /* circular list sentinel */
    unsigned int request_timeout;
    pthread_t watchdog;
    int watching;
    int stopping;
    pthread_cond_t wake;
};

static double bk_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* The slot holding `ip` (count > 0), or -1; `free_slot` gets the first empty one probed. */
static int bk_ip_find(struct bk_shim *shim, uint32_t ip, int *free_slot) {
    unsigned int start = (ip * 2654435761u) % BK_IP_SLOTS;
    *free_slot = -1;
    for (unsigned int n = 0; n < BK_IP_PROBES; n++) {
        unsigned int slot = (start + n) % BK_IP_SLOTS;
        if (shim->count[slot] > 0 && shim->address[slot] == ip) return (int)slot;
        if (shim->count[slot] == 0 && *free_slot < 0) *free_slot = (int)slot;
    }
    return -1;
}

static enum MHD_Result bk_accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
    struct bk_shim *shim = cls;
    if (shim->limit == 0 || addr == NULL || addrlen < (socklen_t)sizeof(struct sockaddr_in) || addr->sa_family != AF_INET) return MHD_YES;
    uint32_t ip = ((const struct sockaddr_in *)addr)->sin_addr.s_addr;
    int free_slot;
    pthread_mutex_lock(&shim->lock);
    int slot = bk_ip_find(shim, ip, &free_slot);
    enum MHD_Result allowed = (slot >= 0 && shim->count[slot] >= shim->limit) ? MHD_NO : MHD_YES;
    pthread_mutex_unlock(&shim->lock);
    return allowed;
}

static void bk_connection_started(struct bk_shim *shim, struct MHD_Connection *connection, void **socket_context) {
    struct bk_connection *entry = calloc(1, sizeof *entry);
    if (entry == NULL) return; /* neither counted nor watched */
    const union MHD_ConnectionInfo *fd_info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    entry->fd = fd_info ? fd_info->connect_fd : -1;
    entry->waiting_since = bk_now();
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    int is_ipv4 = info != NULL && info->client_addr != NULL && info->client_addr->sa_family == AF_INET;
    pthread_mutex_lock(&shim->lock);
    if (shim->limit > 0 && is_ipv4) {
        uint32_t ip = ((const struct sockaddr_in *)info->client_addr)->sin_addr.s_addr;
        int free_slot;
        int slot = bk_ip_find(shim, ip, &free_slot);
        if (slot < 0 && free_slot >= 0) {
            slot = free_slot;
            shim->address[slot] = ip;
        }
        if (slot >= 0) {
            shim->count[slot] += 1;
            entry->ip = ip;
            entry->counted = 1;
        }
    }
    entry->next = shim->head.next;
    entry->prev = &shim->head;
    shim->head.next->prev = entry;
    shim->head.next = entry;
    pthread_mutex_unlock(&shim->lock);
    *socket_context = entry;
}

static void bk_connection_closed(struct bk_shim *shim, void **socket_context) {
    struct bk_connection *entry = *socket_context;
    if (entry == NULL) return;
    pthread_mutex_lock(&shim->lock);
    if (entry->counted) {
        int free_slot;
        int slot = bk_ip_find(shim, entry->ip, &free_slot);
        if (slot >= 0) shim->count[slot] -= 1;
    }
    entry->prev->next = entry->next;
    entry->next->prev = entry->prev;
    pthread_mutex_unlock(&shim->lock);
    free(entry);
    *socket_context = NULL;
}

static void bk_notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                                 enum MHD_ConnectionNotificationCode code) {
    struct bk_shim *shim = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) bk_connection_started(shim, connection, socket_context);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED) bk_connection_closed(shim, socket_context);
}

static void bk_set_waiting(void *shim_pointer, struct MHD_Connection *connection, int waiting) {
    struct bk_shim *shim = shim_pointer;
    if (shim == NULL || connection == NULL) return;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (info == NULL || info->socket_context == NULL) return;
    struct bk_connection *entry = info->socket_context;
    pthread_mutex_lock(&shim->lock);
    entry->waiting_since = waiting ? bk_now() : -1;
    pthread_mutex_unlock(&shim->lock);
}

void bk_mhd_request_received(void *shim, struct MHD_Connection *connection) { bk_set_waiting(shim, connection, 0); }

void bk_mhd_request_done(void *shim, struct MHD_Connection *connection) { bk_set_waiting(shim, connection, 1); }

static void *bk_watchdog(void *cls) {
    struct bk_shim *shim = cls;
    pthread_mutex_lock(&shim->lock);
    while (!shim->stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250000000L;
        if (until.tv_nsec >= 1000000000L) { until.tv_sec += 1; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&shim->wake, &shim->lock, &until);
        double now = bk_now();
        for (struct bk_connection *entry = shim->head.next; entry != &shim->head; entry = entry->next) {
            if (entry->waiting_since >= 0 && now - entry->waiting_since > (double)shim->request_timeout && entry->fd >= 0) {
                shutdown(entry->fd, SHUT_RDWR);
                entry->waiting_since = -1;
            }
        }
    }
    pthread_mutex_unlock(&shim->lock);
    return NULL;
}

void bk_mhd_free_shim(void *shim_pointer) {
    struct bk_shim *shim = shim_pointer;
    if (shim == NULL) return;
    if (shim->watching) {
        pthread_mutex_lock(&shim->lock);
        shim->stopping = 1;
        pthread_cond_signal(&shim->wake);
        pthread_mutex_unlock(&shim->lock);
        pthread_join(shim->watchdog, NULL);
    }
    pthread_cond_destroy(&shim->wake);
    pthread_mutex_destroy(&shim->lock);
    free(shim);
}

/* Leaves the URL and query arguments percent-encoded: libmicrohttpd would otherwise decode them
 * in place, and a "%00" would end the C string early ("/v1/subscribers/a%00b" read as "a").
 * The Swift side decodes each path segment and argument and refuses NUL. */
static size_t bk_keep_escaped(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls;
    (void)connection;
    return strlen(s);
}

void *bk_mhd_shim_create(unsigned int per_ip_limit, unsigned int request_timeout) {
    struct bk_shim *shim = calloc(1, sizeof *shim);
    if (shim == NULL) return NULL;
    pthread_mutex_init(&shim->lock, NULL);
    pthread_cond_init(&shim->wake, NULL);
    shim->limit = per_ip_limit;
    shim->request_timeout = request_timeout;
    shim->head.next = shim->head.prev = &shim->head;
    if (request_timeout > 0) {
        if (pthread_create(&shim->watchdog, NULL, bk_watchdog, shim) != 0) {
            bk_mhd_free_shim(shim);
            return NULL;
        }
        shim->watching = 1;
    }
    return shim;
}

struct MHD_Daemon *bk_mhd_start(uint16_t port, uint32_t address, unsigned int connection_limit,
                                unsigned int connection_timeout, void *shim, MHD_AccessHandlerCallback handler,
                                void *handler_cls, MHD_RequestCompletedCallback completed, void *completed_cls) {
    static struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = address;
    /* One thread with poll(2); handlers run off it. Not epoll (what MHD_USE_AUTO_INTERNAL_THREAD
     * picks on Linux): with libmicrohttpd 0.9.75's epoll loop, keep-alive connections whose
     * requests were suspended and resumed stopped being read, one after another, until each
     * waited out the idle timeout: in the sustained-windows bench (phones acknowledging over 128
     * connections, handlers on other threads) four runs in nine had every connection stalled for
     * 15 s. With poll: none in eight, and the raw stack answers 51,900 requests a second against
     * 44,500 with epoll (wrk -t2 -c50, hello world). */
    unsigned int flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    return MHD_start_daemon(flags, port, bk_accept_policy, shim, handler, handler_cls,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
                            MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned int)1,
                            MHD_OPTION_UNESCAPE_CALLBACK, bk_keep_escaped, NULL,
                            MHD_OPTION_NOTIFY_CONNECTION, bk_notify_connection, shim,
                            MHD_OPTION_END);
}

uint16_t bk_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
