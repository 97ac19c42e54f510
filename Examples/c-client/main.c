/*
 * salus-c-client: calls salus.v1.Session/Hello on a salusd socket and prints what the server
 * says about itself: name, version, protocol version, features, limits, and every service with
 * its methods.
 *
 *     salus-c-client [SOCKET]        (default: $SALUS_SOCKET)
 *
 * The framing follows docs/protocol.md: a 10-byte big-endian header (u32 payload length, u32
 * stream id, u8 type, u8 flags), then a protobuf payload. Messages are encoded and decoded with
 * libprotobuf-c and the code generated from Protos/ into Protos/generated-c/.
 *
 * Exit status: 0 on success; 1 on an error status from the server (its code and message are
 * printed); 2 on a usage error; 3 when the socket cannot be reached; 4 on a protocol error
 * (bad frame, connection closed early, timeout).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "google/rpc/status.pb-c.h"
#include "salus/v1/rpc.pb-c.h"
#include "salus/v1/session.pb-c.h"

enum {
    HEADER_SIZE = 10,
    MAX_PAYLOAD = 4 * 1024 * 1024,
    TYPE_REQUEST = 0x01,
    TYPE_RESPONSE = 0x02,
    HELLO_STREAM_ID = 1,
    PROTOCOL_VERSION = 1,
    TIMEOUT_SECONDS = 10,
};

enum { EXIT_STATUS = 1, EXIT_USAGE = 2, EXIT_CONNECT = 3, EXIT_PROTOCOL = 4 };

static const char *const error_detail_type_url = "type.googleapis.com/salus.v1.ErrorDetail";

static _Noreturn void fail(int status, const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("salus-c-client: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(status);
}

/* Writes all of `length` bytes, looping over partial writes and EINTR. */
static void write_all(int fd, const uint8_t *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = send(fd, bytes, length, MSG_NOSIGNAL);
        if (written < 0) {
            if (errno == EINTR) continue;
            fail(EXIT_PROTOCOL, "cannot send to the server: %s", strerror(errno));
        }
        bytes += written;
        length -= (size_t)written;
    }
}

/* Reads exactly `length` bytes, looping over partial reads and EINTR; `what` names them. */
static void read_all(int fd, uint8_t *bytes, size_t length, const char *what) {
    size_t done = 0;
    while (done < length) {
        ssize_t got = recv(fd, bytes + done, length - done, 0);
        if (got == 0)
            fail(EXIT_PROTOCOL, "the server closed the connection in the middle of %s (%zu of %zu bytes read)",
                 what, done, length);
        if (got < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                fail(EXIT_PROTOCOL, "no answer from the server within %d s", TIMEOUT_SECONDS);
            fail(EXIT_PROTOCOL, "cannot read from the server: %s", strerror(errno));
        }
        done += (size_t)got;
    }
}

static void put_u32(uint8_t *p, uint32_t value) {
    p[0] = (uint8_t)(value >> 24);
    p[1] = (uint8_t)(value >> 16);
    p[2] = (uint8_t)(value >> 8);
    p[3] = (uint8_t)value;
}

static uint32_t get_u32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Sends one frame: header and payload in a single buffer, so it is written whole. */
static void send_frame(int fd, uint32_t stream_id, uint8_t type, uint8_t flags,
                       const ProtobufCMessage *message) {
    size_t length = protobuf_c_message_get_packed_size(message);
    if (length > MAX_PAYLOAD) fail(EXIT_PROTOCOL, "request of %zu bytes exceeds the 4 MiB frame limit", length);
    uint8_t *frame = malloc(HEADER_SIZE + length);
    if (frame == NULL) fail(EXIT_PROTOCOL, "out of memory");
    put_u32(frame, (uint32_t)length);
    put_u32(frame + 4, stream_id);
    frame[8] = type;
    frame[9] = flags;
    protobuf_c_message_pack(message, frame + HEADER_SIZE);
    write_all(fd, frame, HEADER_SIZE + length);
    free(frame);
}

struct frame {
    uint32_t stream_id;
    uint8_t type;
    uint8_t flags;
    uint32_t length;
    uint8_t *payload; /* malloc'd; the caller frees it */
};

static struct frame receive_frame(int fd) {
    uint8_t header[HEADER_SIZE];
    read_all(fd, header, HEADER_SIZE, "a frame header");
    if (header[0] != 0)
        fail(EXIT_PROTOCOL, "bad frame: header's first byte is 0x%02x, not 0 (declared length %u)", header[0],
             get_u32(header));
    struct frame frame = {
        .length = get_u32(header),
        .stream_id = get_u32(header + 4),
        .type = header[8],
        .flags = header[9],
    };
    if (frame.length > MAX_PAYLOAD)
        fail(EXIT_PROTOCOL, "bad frame: payload of %u bytes exceeds the 4 MiB limit", frame.length);
    frame.payload = malloc(frame.length > 0 ? frame.length : 1);
    if (frame.payload == NULL) fail(EXIT_PROTOCOL, "out of memory");
    read_all(fd, frame.payload, frame.length, "a frame payload");
    return frame;
}

static int connect_unix(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path)
        fail(EXIT_USAGE, "socket path is too long (at most %zu bytes): %s", sizeof address.sun_path - 1, path);
    strcpy(address.sun_path, path);

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fail(EXIT_CONNECT, "cannot create a socket: %s", strerror(errno));
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0)
        fail(EXIT_CONNECT, "cannot connect to %s: %s", path, strerror(errno));

    /* Never wait forever for a server that does not answer. */
    struct timeval timeout = {.tv_sec = TIMEOUT_SECONDS};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    return fd;
}

static const char *code_name(int32_t code) {
    static const char *const names[] = {
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
        "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
        "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
        "UNAUTHENTICATED",
    };
    return code >= 0 && code < (int32_t)(sizeof names / sizeof names[0]) ? names[code] : "UNKNOWN";
}

/* Prints a non-OK status: its code, message and the ErrorDetail if there is one. */
static void print_status(const Google__Rpc__Status *status) {
    fprintf(stderr, "salus-c-client: Hello failed: %s (%d): %s\n", code_name(status->code), status->code,
            status->message);
    for (size_t i = 0; i < status->n_details; i++) {
        const Salus__V1__AnyMessage *any = status->details[i];
        if (strcmp(any->type_url, error_detail_type_url) != 0) continue;
        Salus__V1__ErrorDetail *detail =
            salus__v1__error_detail__unpack(NULL, any->value.len, any->value.data);
        if (detail == NULL) continue;
        const ProtobufCEnumValue *reason =
            protobuf_c_enum_descriptor_get_value(&salus__v1__error_reason__descriptor, detail->reason);
        fprintf(stderr, "salus-c-client: detail: reason=%s field=%s value=%s expected=%s domain=%s\n",
                reason != NULL ? reason->name : "?", detail->field, detail->value, detail->expected,
                detail->domain);
        salus__v1__error_detail__free_unpacked(detail, NULL);
    }
}

static const char *method_kind(const Salus__V1__MethodInfo *method) {
    if (method->client_streaming && method->server_streaming) return "bidirectional streaming";
    if (method->client_streaming) return "client streaming";
    if (method->server_streaming) return "server streaming";
    return "unary";
}

static void print_hello(const Salus__V1__HelloResponse *hello) {
    printf("server: %s %s\n", hello->server_name, hello->server_version);
    printf("protocol version: %u\n", hello->protocol_version);
    printf("features:");
    for (size_t i = 0; i < hello->n_features; i++) printf(" %s", hello->features[i]);
    printf("\n");
    if (hello->limits != NULL)
        printf("limits: max_frame_size=%u max_metadata_size=%u initial_window=%u receive_window=%u\n",
               hello->limits->max_frame_size, hello->limits->max_metadata_size, hello->limits->initial_window,
               hello->limits->receive_window);
    printf("services:\n");
    for (size_t i = 0; i < hello->n_services; i++) {
        const Salus__V1__ServiceInfo *service = hello->services[i];
        printf("  %s\n", service->name);
        for (size_t j = 0; j < service->n_methods; j++)
            printf("    %s (%s)\n", service->methods[j]->name, method_kind(service->methods[j]));
    }
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : getenv("SALUS_SOCKET");
    if (argc > 2 || path == NULL || path[0] == '\0' || strcmp(path, "-h") == 0 || strcmp(path, "--help") == 0) {
        fprintf(stderr, "usage: salus-c-client [SOCKET]   (default: $SALUS_SOCKET)\n");
        return EXIT_USAGE;
    }

    int fd = connect_unix(path);

    /* Request{service, method, payload = HelloRequest} on stream 1, flags 0: a unary call. */
    char *features[] = {"cancel", "window_update", "go_away"};
    Salus__V1__HelloRequest hello_request = SALUS__V1__HELLO_REQUEST__INIT;
    hello_request.protocol_version = PROTOCOL_VERSION;
    hello_request.client_name = "salus-c-client";
    hello_request.client_version = "1.0";
    hello_request.n_features = sizeof features / sizeof features[0];
    hello_request.features = features;

    size_t hello_size = salus__v1__hello_request__get_packed_size(&hello_request);
    uint8_t *hello_bytes = malloc(hello_size > 0 ? hello_size : 1);
    if (hello_bytes == NULL) fail(EXIT_PROTOCOL, "out of memory");
    salus__v1__hello_request__pack(&hello_request, hello_bytes);

    Salus__V1__Request request = SALUS__V1__REQUEST__INIT;
    request.service = "salus.v1.Session";
    request.method = "Hello";
    request.payload.data = hello_bytes;
    request.payload.len = hello_size;
    send_frame(fd, HELLO_STREAM_ID, TYPE_REQUEST, 0, &request.base);
    free(hello_bytes);

    /* Read frames until the Response on stream 1. Frame types this client does not know are
     * skipped, as the protocol asks of every reader. */
    for (;;) {
        struct frame frame = receive_frame(fd);
        if (frame.type != TYPE_RESPONSE) {
            free(frame.payload);
            continue;
        }
        if (frame.stream_id != HELLO_STREAM_ID)
            fail(EXIT_PROTOCOL, "bad frame: Response on stream %u, but the only call is on stream %d",
                 frame.stream_id, HELLO_STREAM_ID);

        Salus__V1__Response *response = salus__v1__response__unpack(NULL, frame.length, frame.payload);
        free(frame.payload);
        if (response == NULL) fail(EXIT_PROTOCOL, "bad frame: the Response payload does not decode");
        if (response->status != NULL && response->status->code != 0) {
            print_status(response->status);
            salus__v1__response__free_unpacked(response, NULL);
            close(fd);
            return EXIT_STATUS;
        }

        Salus__V1__HelloResponse *hello =
            salus__v1__hello_response__unpack(NULL, response->payload.len, response->payload.data);
        if (hello == NULL) fail(EXIT_PROTOCOL, "bad frame: the HelloResponse does not decode");
        print_hello(hello);

        salus__v1__hello_response__free_unpacked(hello, NULL);
        salus__v1__response__free_unpacked(response, NULL);
        break;
    }
    close(fd);
    return fflush(stdout) == 0 ? 0 : EXIT_PROTOCOL;
}
