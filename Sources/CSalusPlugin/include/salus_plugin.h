/*
 * salus_plugin.h — the binary interface between salusd and a data-type plugin.
 *
 * This is the only header a plugin needs (plain C11; no Swift or C++ types). A plugin is a
 * shared library that exports one function, salus_plugin_get_entry, returning a versioned entry
 * table. Everything a plugin declares (types, units, enumerations, metadata keys) travels as one
 * protobuf-encoded salus.v1.PluginManifest (Protos/salus/v1/plugin.proto); code travels as
 * factories looked up by versioned string id. docs/plugins.md is the author's guide.
 *
 * Rules (each one is what the host relies on):
 *
 *  1. Loading. The host opens every "*.so" of its plugin directories, in byte order of the file
 *     names, with dlopen(RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) and NEVER closes it: unloading a
 *     library that contains Swift code leaves dangling pointers in the Swift runtime and crashes
 *     the process later. A plugin is therefore loaded once per process and stays until exit;
 *     "disabling" one means removing the file and restarting the daemon.
 *  2. The entry symbol. The host looks up salus_plugin_get_entry (a function, because dlsym is
 *     only guaranteed to work on functions), calls it once with its own ABI version and gets a
 *     pointer to a salus_plugin_entry that must stay valid and unchanged for the life of the
 *     process (a static const object is the normal way). Returning NULL refuses to load (e.g.
 *     when host_abi.major is one the plugin does not support).
 *  3. Versions. abi.major changes only for incompatible changes; the host refuses a plugin whose
 *     major differs from its own. abi.minor grows when fields are appended; either side must
 *     accept any minor.
 *  4. Append-only structs. salus_host, salus_plugin_entry and every factory struct begin with
 *     their size in bytes (struct_size), and new fields are only ever added at the end. A reader
 *     touches a field only if struct_size covers it (SALUS_HAS_FIELD below); the host refuses an
 *     entry too small to hold every field of ABI 1.0. Never reorder, remove or retype a field.
 *  5. Call order. get_entry → init (exactly once, before anything else) → get_manifest → any
 *     number of get_factory and factory calls → deinit (at most once, at process exit; may be
 *     skipped). If init fails, the host calls nothing else, including deinit.
 *  6. Threads. init, deinit, get_manifest and get_factory are called from one thread at a time.
 *     Factory functions marked [thread-safe] may be called from several threads at once.
 *  7. Memory. Borrowed data (salus_bytes, const char *) belongs to whoever passed it and is
 *     valid only for the call unless a rule says otherwise. Every string a plugin hands to the
 *     host to own (out_error of init, validator results) must be allocated with host->alloc or
 *     host->strdup; the host frees it. Never pass memory from malloc, a Swift String or a C++
 *     object across. Nothing may throw, longjmp or unwind across the boundary.
 *  8. Types across the boundary: only the C types in this header, protobuf-encoded bytes and
 *     NUL-terminated UTF-8 strings. Swift plugins are built with the same Swift toolchain as the
 *     daemon (Swift has no stable ABI on Linux and the process holds one Swift runtime) and pass
 *     no Swift values to the host; C plugins need only this header and libprotobuf-c.
 *  9. Trust. A plugin runs inside the daemon with the daemon's privileges and sees the samples
 *     it validates. Install only plugins you trust, in directories only you can write.
 */
#ifndef SALUS_PLUGIN_H
#define SALUS_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI this header describes. */
#define SALUS_PLUGIN_ABI_MAJOR 1
#define SALUS_PLUGIN_ABI_MINOR 1

/* The name of the one symbol a plugin exports. */
#define SALUS_PLUGIN_ENTRY_SYMBOL "salus_plugin_get_entry"

/* True when a struct that starts with `uint32_t struct_size` is large enough to hold `field`. */
#define SALUS_HAS_FIELD(ptr, type, field) \
    ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* An ABI version: major must match, minor only grows. */
typedef struct salus_abi_version {
    uint16_t major;
    uint16_t minor;
} salus_abi_version;

/* Status codes, numbered like gRPC's (and salus.v1 RPC errors). */
typedef int32_t salus_status;
#define SALUS_OK 0
#define SALUS_ERR_INVALID_ARGUMENT 3
#define SALUS_ERR_NOT_FOUND 5
#define SALUS_ERR_FAILED_PRECONDITION 9
#define SALUS_ERR_UNIMPLEMENTED 12
#define SALUS_ERR_INTERNAL 13

/* Log levels for salus_host.log (swift-log's levels). */
typedef int32_t salus_log_level;
#define SALUS_LOG_TRACE 0
#define SALUS_LOG_DEBUG 1
#define SALUS_LOG_INFO 2
#define SALUS_LOG_NOTICE 3
#define SALUS_LOG_WARNING 4
#define SALUS_LOG_ERROR 5

/* Bytes borrowed from their owner. */
typedef struct salus_bytes {
    const uint8_t *data;
    size_t size;
} salus_bytes;

/*
 * What the host offers a plugin. Owned by the host; valid from init until the process exits.
 * Plugins keep the pointer they get in init if they need it later. Append-only (rule 4).
 */
typedef struct salus_host {
    /* sizeof(salus_host) as the host was compiled: check it before using appended fields. */
    uint32_t struct_size;
    salus_abi_version abi;
    /* Private to the host. */
    void *host_data;
    /* Allocates `size` bytes that the host will free. Returns NULL when out of memory.
     * [thread-safe] */
    void *(*alloc)(const struct salus_host *host, size_t size);
    /* Copies a NUL-terminated string into memory the host will free. [thread-safe] */
    char *(*strdup)(const struct salus_host *host, const char *string);
    /* Writes one line to the daemon's log, tagged with the plugin's file. `message` is
     * borrowed. [thread-safe] */
    void (*log)(const struct salus_host *host, salus_log_level level, const char *message);
} salus_host;

/*
 * The table a plugin returns from salus_plugin_get_entry. Owned by the plugin; valid for the
 * life of the process. Append-only (rule 4).
 */
typedef struct salus_plugin_entry {
    /* sizeof(salus_plugin_entry) as the plugin was compiled. */
    uint32_t struct_size;
    /* The ABI the plugin was built against: SALUS_PLUGIN_ABI_MAJOR / _MINOR. */
    salus_abi_version abi;

    /* Called once, first. Returns SALUS_OK, or an error code and (optionally) a message in
     * *out_error allocated with host->strdup, which the host logs and frees. */
    salus_status (*init)(const salus_host *host, char **out_error);

    /* Called at most once, last. May be NULL. The library is not unloaded afterwards. */
    void (*deinit)(void);

    /* Stores a protobuf-encoded salus.v1.PluginManifest in *out_manifest. The bytes are
     * borrowed: they must stay valid and unchanged until deinit (the host copies them). */
    salus_status (*get_manifest)(salus_bytes *out_manifest);

    /* Returns the factory with a versioned id ("salus.sample-validator/1"), or NULL when the
     * plugin has none. The pointer stays valid for the life of the process. Unknown ids must
     * return NULL, never fail. */
    const void *(*get_factory)(const char *factory_id);
} salus_plugin_entry;

/* The exported function. `host_abi` is the host's ABI version. Returns NULL to refuse. */
typedef const salus_plugin_entry *(*salus_plugin_get_entry_fn)(salus_abi_version host_abi);

/* ---- Factory "salus.sample-validator/1" ------------------------------------------------- */

#define SALUS_SAMPLE_VALIDATOR_FACTORY_ID "salus.sample-validator/1"

/*
 * A refusal in parts (ABI 1.1). Each string is allocated with host->strdup or host->alloc, or
 * is NULL; the host frees every one that is not NULL.
 */
typedef struct salus_validation_error {
    /* The offending field's path inside the sample, in the path syntax of docs/protocol.md
     * section 11: "endDate", "quantity.value", "metadata.HKMenstrualCycleStart". The host
     * prefixes the sample's own path ("samples[3]."). NULL or "" names the whole sample. */
    char *field;
    /* The offending value as text ("25 h", "nil"). */
    char *value;
    /* What would have been accepted ("at most 24 h"). */
    char *expected;
    /* Optional: one sentence for people; the host composes one from the parts when NULL. */
    char *message;
} salus_validation_error;

/*
 * Checks samples of the plugin's own types beyond what the manifest declares (kinds, units,
 * bounds, enumeration values and required metadata keys are checked by the host first).
 * The host calls it only for samples whose type one of the plugin's manifests declares, with
 * the quantity in the type's canonical unit.
 */
typedef struct salus_sample_validator {
    /* sizeof(salus_sample_validator) as the plugin was compiled. */
    uint32_t struct_size;

    /* `sample` is a borrowed protobuf-encoded salus.v1.Sample. Returns NULL when the sample is
     * acceptable, otherwise a message allocated with host->strdup / host->alloc that names the
     * field, the value and what was expected; the host frees it. A sample the validator cannot
     * decode is refused with a message. [thread-safe] */
    char *(*validate)(const salus_host *host, const uint8_t *sample, size_t sample_size);

    /* ABI 1.1, appended: the same check with the refusal in parts. Returns 0 when the sample
     * is acceptable (leaving *out_error untouched), non-zero when it is refused, with
     * *out_error filled in (the host zeroes it first). May be NULL, or absent in a table from
     * a 1.0 plugin (check with SALUS_HAS_FIELD): the host then calls validate and reads its
     * free-text message, whose "field: ..." prefix names the field. [thread-safe] */
    int32_t (*validate_fields)(const salus_host *host, const uint8_t *sample, size_t sample_size,
                               salus_validation_error *out_error);
} salus_sample_validator;

/* The prototype every plugin defines (and exports with default visibility). Hidden from Swift,
 * which defines it with @c / @_cdecl (SalusPluginKit) and never calls it directly. */
#ifndef __swift__
const salus_plugin_entry *salus_plugin_get_entry(salus_abi_version host_abi);
#endif

#ifdef __cplusplus
}
#endif

#endif /* SALUS_PLUGIN_H */
