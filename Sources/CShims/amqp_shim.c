#include "CShims.h"

amqp_rpc_reply_t bk_amqp_login_plain(amqp_connection_state_t state, const char *vhost,
                                     int channel_max, int frame_max, int heartbeat,
                                     const char *user, const char *password) {
    return amqp_login(state, vhost, channel_max, frame_max, heartbeat,
                      AMQP_SASL_METHOD_PLAIN, user, password);
}

uint32_t bk_amqp_method_basic_ack(void) { return AMQP_BASIC_ACK_METHOD; }
uint32_t bk_amqp_method_basic_nack(void) { return AMQP_BASIC_NACK_METHOD; }
uint32_t bk_amqp_method_basic_return(void) { return AMQP_BASIC_RETURN_METHOD; }
uint32_t bk_amqp_method_channel_close(void) { return AMQP_CHANNEL_CLOSE_METHOD; }
uint32_t bk_amqp_method_connection_close(void) { return AMQP_CONNECTION_CLOSE_METHOD; }
uint32_t bk_amqp_method_basic_cancel(void) { return AMQP_BASIC_CANCEL_METHOD; }
