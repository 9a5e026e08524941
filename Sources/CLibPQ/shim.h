#ifndef BUZZKIT_CLIBPQ_H
#define BUZZKIT_CLIBPQ_H
#include <postgresql/libpq-fe.h>
#include <poll.h>
#endif
