/*
 * A third-party Salus plugin in C: a migraine diary.
 *
 * It registers one category type, "org.example.migraine.attack" (severity mild 1, moderate 2,
 * severe 3, incapacitating 4, with the value group "disabling" = {3, 4}), one metadata key,
 * "org.example.migraine.aura" (bool), and a sample validator. The manifest is built with the
 * protoc-c code generated from Protos/salus/v1/plugin.proto and packed once in init; the
 * validator reads samples as salus.v1.SampleHeader (the Sample fields it needs, same numbers).
 * Built against ABI 1.1, it answers in parts (validate_fields) and keeps the 1.0 free-text
 * validate for 1.0 hosts; both report the one check below.
 * docs/plugins.md walks through this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <salus_plugin.h>
#include "salus/v1/plugin.pb-c.h"

/* Only salus_plugin_get_entry is exported (the Makefile builds with -fvisibility=hidden). */
#define EXPORT __attribute__((visibility("default")))

#define PLUGIN_ID "org.example.migraine"
#define ATTACK_TYPE PLUGIN_ID ".attack"
#define AURA_KEY PLUGIN_ID ".aura"

/* One attack longer than a week is not one attack; the diary asks for one sample per attack. */
#define MAX_ATTACK_MICROSECONDS (7LL * 24 * 3600 * 1000000)

static const salus_host *g_host;
static uint8_t *g_manifest;
static size_t g_manifest_size;

/* ---- The manifest --------------------------------------------------------------------- */

static uint8_t *pack_manifest(size_t *out_size) {
    Salus__V1__EnumerationCase mild = SALUS__V1__ENUMERATION_CASE__INIT;
    Salus__V1__EnumerationCase moderate = SALUS__V1__ENUMERATION_CASE__INIT;
    Salus__V1__EnumerationCase severe = SALUS__V1__ENUMERATION_CASE__INIT;
    Salus__V1__EnumerationCase incapacitating = SALUS__V1__ENUMERATION_CASE__INIT;
    mild.name = "mild";
    mild.raw_value = 1;
    moderate.name = "moderate";
    moderate.raw_value = 2;
    severe.name = "severe";
    severe.raw_value = 3;
    incapacitating.name = "incapacitating";
    incapacitating.raw_value = 4;
    Salus__V1__EnumerationCase *cases[] = {&mild, &moderate, &severe, &incapacitating};

    int64_t disabling_values[] = {3, 4};
    Salus__V1__ValueGroup disabling = SALUS__V1__VALUE_GROUP__INIT;
    disabling.name = "disabling";
    disabling.n_raw_values = 2;
    disabling.raw_values = disabling_values;
    Salus__V1__ValueGroup *groups[] = {&disabling};

    Salus__V1__TypeMetadataKey aura_use = SALUS__V1__TYPE_METADATA_KEY__INIT;
    aura_use.key = AURA_KEY;
    aura_use.value_type = SALUS__V1__METADATA_VALUE_TYPE__METADATA_VALUE_TYPE_BOOL;
    Salus__V1__TypeMetadataKey *optional_keys[] = {&aura_use};

    Salus__V1__TypeDefinition attack = SALUS__V1__TYPE_DEFINITION__INIT;
    attack.identifier = ATTACK_TYPE;
    attack.kind = SALUS__V1__OBJECT_KIND__OBJECT_KIND_CATEGORY;
    attack.display_name = "Migraine attack";
    attack.n_cases = 4;
    attack.cases = cases;
    attack.n_value_groups = 1;
    attack.value_groups = groups;
    attack.n_optional_metadata_keys = 1;
    attack.optional_metadata_keys = optional_keys;
    Salus__V1__TypeDefinition *types[] = {&attack};

    Salus__V1__MetadataKeyDefinition aura = SALUS__V1__METADATA_KEY_DEFINITION__INIT;
    aura.key = AURA_KEY;
    aura.value_type = SALUS__V1__METADATA_VALUE_TYPE__METADATA_VALUE_TYPE_BOOL;
    aura.display_name = "Aura";
    Salus__V1__MetadataKeyDefinition *keys[] = {&aura};

    Salus__V1__PluginManifest manifest = SALUS__V1__PLUGIN_MANIFEST__INIT;
    manifest.id = PLUGIN_ID;
    manifest.name = "Migraine diary";
    manifest.version = "1.0.0";
    manifest.n_types = 1;
    manifest.types = types;
    manifest.n_metadata_keys = 1;
    manifest.metadata_keys = keys;

    size_t size = salus__v1__plugin_manifest__get_packed_size(&manifest);
    uint8_t *bytes = malloc(size);
    if (bytes == NULL) return NULL;
    salus__v1__plugin_manifest__pack(&manifest, bytes);
    *out_size = size;
    return bytes;
}

/* ---- The validator -------------------------------------------------------------------- */

/* What the one check found; the two validator functions below report it, each in its form. */
typedef enum verdict {
    ACCEPTED,
    UNDECODABLE,
    ENDS_BEFORE_IT_STARTS,
    TOO_LONG,
} verdict;

/* The plugin's one check of a sample: the host has already checked every rule the manifest
 * declares (kind, enumeration values, metadata types), so only what the manifest cannot say
 * is left. Fills *duration (microseconds) and *start for the reports. */
static verdict check(const uint8_t *data, size_t size, long long *duration, long long *start) {
    Salus__V1__SampleHeader *sample = salus__v1__sample_header__unpack(NULL, size, data);
    if (sample == NULL) return UNDECODABLE;
    verdict result = ACCEPTED;
    if (strcmp(sample->type, ATTACK_TYPE) == 0) {
        *duration = (long long)(sample->end_date - sample->start_date);
        *start = (long long)sample->start_date;
        if (*duration <= 0) {
            result = ENDS_BEFORE_IT_STARTS;
        } else if (*duration > MAX_ATTACK_MICROSECONDS) {
            result = TOO_LONG;
        }
    }
    salus__v1__sample_header__free_unpacked(sample, NULL);
    return result;
}

/* Formats into memory the host frees (NULL when out of memory, which the host accepts). */
static char *host_format(const salus_host *host, const char *format, long long a, long long b) {
    char text[256];
    snprintf(text, sizeof text, format, a, b);
    return host->strdup(host, text);
}

/* ABI 1.0: the refusal as one message, "field: what is wrong; expected what". A 1.1 host calls
 * validate_fields instead; this stays for 1.0 hosts. [thread-safe]: no shared mutable state. */
static char *validate(const salus_host *host, const uint8_t *data, size_t size) {
    long long duration = 0, start = 0;
    switch (check(data, size, &duration, &start)) {
    case ACCEPTED:
        return NULL;
    case UNDECODABLE:
        return host->strdup(host, "sample: not a protobuf-encoded salus.v1.Sample");
    case ENDS_BEFORE_IT_STARTS:
        return host_format(host,
            "endDate: an attack lasting %lld us (start %lld); expected endDate after startDate",
            duration, start);
    case TOO_LONG:
        return host_format(host,
            "endDate: an attack lasting %lld s; expected at most %lld s (7 days) per attack sample",
            duration / 1000000, MAX_ATTACK_MICROSECONDS / 1000000);
    }
    return NULL;
}

/* ABI 1.1: the refusal in parts. The field path is relative to the sample ("endDate"; the host
 * prefixes "samples[3]."), the quantity, if any, is in the type's canonical unit, and message
 * is left NULL so that the host composes the sentence from the parts. [thread-safe] */
static int32_t validate_fields(const salus_host *host, const uint8_t *data, size_t size,
                               salus_validation_error *out_error) {
    long long duration = 0, start = 0;
    switch (check(data, size, &duration, &start)) {
    case ACCEPTED:
        return 0;
    case UNDECODABLE:
        out_error->field = NULL; /* the whole sample */
        out_error->value = host_format(host, "%lld bytes", (long long)size, 0);
        out_error->expected = host->strdup(host, "a protobuf-encoded salus.v1.Sample");
        return 1;
    case ENDS_BEFORE_IT_STARTS:
        out_error->field = host->strdup(host, "endDate");
        out_error->value = host_format(host, "an attack lasting %lld us", duration, 0);
        out_error->expected = host->strdup(host, "endDate after startDate");
        return 1;
    case TOO_LONG:
        out_error->field = host->strdup(host, "endDate");
        out_error->value = host_format(host, "an attack lasting %lld s", duration / 1000000, 0);
        out_error->expected = host_format(host, "at most %lld s (7 days) per attack sample",
                                          MAX_ATTACK_MICROSECONDS / 1000000, 0);
        return 1;
    }
    return 0;
}

static const salus_sample_validator g_validator = {
    .struct_size = sizeof(salus_sample_validator),
    .validate = validate,
    .validate_fields = validate_fields,
};

/* ---- The entry ------------------------------------------------------------------------ */

static salus_status plugin_init(const salus_host *host, char **out_error) {
    g_host = host;
    g_manifest = pack_manifest(&g_manifest_size);
    if (g_manifest == NULL) {
        *out_error = host->strdup(host, "out of memory packing the manifest");
        return SALUS_ERR_INTERNAL;
    }
    host->log(host, SALUS_LOG_DEBUG, "migraine diary ready");
    return SALUS_OK;
}

static void plugin_deinit(void) {
    free(g_manifest);
    g_manifest = NULL;
}

static salus_status plugin_get_manifest(salus_bytes *out_manifest) {
    if (g_manifest == NULL) return SALUS_ERR_FAILED_PRECONDITION;
    out_manifest->data = g_manifest;
    out_manifest->size = g_manifest_size;
    return SALUS_OK;
}

static const void *plugin_get_factory(const char *factory_id) {
    if (strcmp(factory_id, SALUS_SAMPLE_VALIDATOR_FACTORY_ID) == 0) return &g_validator;
    return NULL;
}

static const salus_plugin_entry g_entry = {
    .struct_size = sizeof(salus_plugin_entry),
    .abi = {SALUS_PLUGIN_ABI_MAJOR, SALUS_PLUGIN_ABI_MINOR},
    .init = plugin_init,
    .deinit = plugin_deinit,
    .get_manifest = plugin_get_manifest,
    .get_factory = plugin_get_factory,
};

EXPORT const salus_plugin_entry *salus_plugin_get_entry(salus_abi_version host_abi) {
    if (host_abi.major != SALUS_PLUGIN_ABI_MAJOR) return NULL;
    return &g_entry;
}
