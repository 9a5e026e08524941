/* The raw RabbitMQ ceiling: the same work as BuzzKit's Swift clients, written directly
 * against rabbitmq-c in plain C, so `make bench` can print the Swift figures as ratios.
 *
 *   raw_amqp publish HOST PORT QUEUE COUNT   persistent 200-byte publishes, confirms pipelined
 *   raw_amqp consume HOST PORT QUEUE COUNT   manual ack per message, prefetch 500
 * Prints one number: messages per second. */
#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static double now(void) { struct timeval tv; gettimeofday(&tv, NULL); return tv.tv_sec + tv.tv_usec / 1e6; }

static void die_on(amqp_rpc_reply_t r, const char *what) {
    if (r.reply_type != AMQP_RESPONSE_NORMAL) { fprintf(stderr, "raw_amqp: %s failed (%d)\n", what, r.reply_type); exit(1); }
}

int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: raw_amqp publish|consume HOST PORT QUEUE COUNT\n"); return 2; }
    const char *mode = argv[1], *host = argv[2], *queue = argv[4];
    int port = atoi(argv[3]);
    long count = atol(argv[5]);
    amqp_connection_state_t conn = amqp_new_connection();
    amqp_socket_t *sock = amqp_tcp_socket_new(conn);
    if (amqp_socket_open(sock, host, port) != AMQP_STATUS_OK) { fprintf(stderr, "raw_amqp: connect failed\n"); return 1; }
    die_on(amqp_login(conn, "/", 0, 131072, 0, AMQP_SASL_METHOD_PLAIN, "guest", "guest"), "login");
    amqp_channel_open(conn, 1);
    die_on(amqp_get_rpc_reply(conn), "channel.open");

    if (strcmp(mode, "publish") == 0) {
        amqp_confirm_select(conn, 1);
        die_on(amqp_get_rpc_reply(conn), "confirm.select");
        char body[200]; memset(body, 'x', sizeof body);
        amqp_basic_properties_t props; memset(&props, 0, sizeof props);
        props._flags = AMQP_BASIC_DELIVERY_MODE_FLAG; props.delivery_mode = 2;
        amqp_bytes_t payload = { sizeof body, body };
        long sent = 0; uint64_t confirmed = 0;
        const long window = 2000;
        double start = now();
        while ((long)confirmed < count) {
            while (sent < count && sent - (long)confirmed < window) {
                if (amqp_basic_publish(conn, 1, amqp_empty_bytes, amqp_cstring_bytes(queue), 0, 0, &props, payload) != AMQP_STATUS_OK) {
                    fprintf(stderr, "raw_amqp: publish failed\n"); return 1;
                }
                sent++;
            }
            amqp_frame_t frame;
            struct timeval tv = { 5, 0 };
            if (amqp_simple_wait_frame_noblock(conn, &frame, &tv) != AMQP_STATUS_OK) { fprintf(stderr, "raw_amqp: no confirm\n"); return 1; }
            if (frame.frame_type == AMQP_FRAME_METHOD && frame.payload.method.id == AMQP_BASIC_ACK_METHOD) {
                amqp_basic_ack_t *ack = frame.payload.method.decoded;
                confirmed = ack->multiple ? ack->delivery_tag : confirmed + 1;
            }
            amqp_maybe_release_buffers(conn);
        }
        printf("%.0f\n", count / (now() - start));
    } else {
        amqp_basic_qos(conn, 1, 0, 500, 0);
        amqp_basic_consume(conn, 1, amqp_cstring_bytes(queue), amqp_empty_bytes, 0, 0, 0, amqp_empty_table);
        die_on(amqp_get_rpc_reply(conn), "basic.consume");
        double start = 0;
        for (long n = 0; n < count; n++) {
            amqp_envelope_t envelope;
            amqp_maybe_release_buffers(conn);
            struct timeval tv = { 10, 0 };
            amqp_rpc_reply_t r = amqp_consume_message(conn, &envelope, &tv, 0);
            die_on(r, "consume");
            if (n == 0) start = now();
            amqp_basic_ack(conn, 1, envelope.delivery_tag, 0);
            amqp_destroy_envelope(&envelope);
        }
        printf("%.0f\n", (count - 1) / (now() - start));
    }
    amqp_channel_close(conn, 1, AMQP_REPLY_SUCCESS);
    amqp_connection_close(conn, AMQP_REPLY_SUCCESS);
    amqp_destroy_connection(conn);
    return 0;
}
