#ifndef BUZZKIT_CSHIMS_H
#define BUZZKIT_CSHIMS_H
#include <amqp.h>
#include <amqp_framing.h>
#include <stdint.h>

/* Non-variadic wrappers and macro values that Swift cannot import directly. */

/** amqp_login with PLAIN credentials (amqp_login itself is variadic). */
amqp_rpc_reply_t bk_amqp_login_plain(amqp_connection_state_t state, const char *vhost,
                                     int channel_max, int frame_max, int heartbeat,
                                     const char *user, const char *password);

/** Method ids that rabbitmq-c defines as cast macros. */
uint32_t bk_amqp_method_basic_ack(void);
uint32_t bk_amqp_method_basic_nack(void);
uint32_t bk_amqp_method_basic_return(void);
uint32_t bk_amqp_method_channel_close(void);
uint32_t bk_amqp_method_connection_close(void);
uint32_t bk_amqp_method_basic_cancel(void);

#endif
