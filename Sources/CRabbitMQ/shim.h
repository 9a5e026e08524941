#ifndef BUZZKIT_CRABBITMQ_H
#define BUZZKIT_CRABBITMQ_H
#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <poll.h>
#include <sys/eventfd.h>
#endif
