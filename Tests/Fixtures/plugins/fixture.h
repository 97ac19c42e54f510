/*
 * A configurable one-type plugin for the refused-plugin fixtures. Define before including:
 *   FIXTURE_ABI_MAJOR        the entry's ABI major (default SALUS_PLUGIN_ABI_MAJOR)
 *   FIXTURE_STRUCT_SIZE      the entry's struct_size (default sizeof(salus_plugin_entry))
 *   FIXTURE_NO_ENTRY         export no salus_plugin_get_entry at all
 *   FIXTURE_GARBAGE_MANIFEST return bytes that are not a PluginManifest
 *   FIXTURE_PLUGIN_ID        the manifest id (default "org.example.fixture")
 *   FIXTURE_TYPE_ID          the type identifier (default FIXTURE_PLUGIN_ID ".thing")
 *   FIXTURE_UNIT             make the type a cumulative quantity with this canonical unit
 *                            (default: a category type with one case)
 */
#include <stdlib.h>
#include <string.h>

#include <salus_plugin.h>
#include "salus/v1/plugin.pb-c.h"

#define EXPORT __attribute__((visibility("default")))

#ifndef FIXTURE_ABI_MAJOR
#define FIXTURE_ABI_MAJOR SALUS_PLUGIN_ABI_MAJOR
#endif
#ifndef FIXTURE_STRUCT_SIZE
#define FIXTURE_STRUCT_SIZE sizeof(salus_plugin_entry)
#endif
#ifndef FIXTURE_PLUGIN_ID
#define FIXTURE_PLUGIN_ID "org.example.fixture"
#endif
#ifndef FIXTURE_TYPE_ID
#define FIXTURE_TYPE_ID FIXTURE_PLUGIN_ID ".thing"
#endif

static uint8_t *g_bytes;
static size_t g_size;

static salus_status fixture_init(const salus_host *host, char **out_error) {
    (void)host;
    (void)out_error;
#ifdef FIXTURE_GARBAGE_MANIFEST
    /* Field 1 with wire type 7, which does not exist. */
    static uint8_t garbage[] = {0x0f, 0xff, 0xff, 0xff};
    g_bytes = garbage;
    g_size = sizeof garbage;
#else
    Salus__V1__TypeDefinition type = SALUS__V1__TYPE_DEFINITION__INIT;
    type.identifier = FIXTURE_TYPE_ID;
    type.display_name = "Fixture";
#ifdef FIXTURE_UNIT
    type.kind = SALUS__V1__OBJECT_KIND__OBJECT_KIND_QUANTITY;
    type.canonical_unit = FIXTURE_UNIT;
    type.aggregation_style = SALUS__V1__AGGREGATION_STYLE__AGGREGATION_STYLE_CUMULATIVE;
#else
    Salus__V1__EnumerationCase only = SALUS__V1__ENUMERATION_CASE__INIT;
    only.name = "present";
    only.raw_value = 1;
    Salus__V1__EnumerationCase *cases[] = {&only};
    type.kind = SALUS__V1__OBJECT_KIND__OBJECT_KIND_CATEGORY;
    type.n_cases = 1;
    type.cases = cases;
#endif
    Salus__V1__TypeDefinition *types[] = {&type};
    Salus__V1__PluginManifest manifest = SALUS__V1__PLUGIN_MANIFEST__INIT;
    manifest.id = FIXTURE_PLUGIN_ID;
    manifest.name = "Fixture";
    manifest.version = "0.0.1";
    manifest.n_types = 1;
    manifest.types = types;
    g_size = salus__v1__plugin_manifest__get_packed_size(&manifest);
    g_bytes = malloc(g_size);
    salus__v1__plugin_manifest__pack(&manifest, g_bytes);
#endif
    return SALUS_OK;
}

static salus_status fixture_get_manifest(salus_bytes *out) {
    out->data = g_bytes;
    out->size = g_size;
    return SALUS_OK;
}

static const void *fixture_get_factory(const char *id) {
    (void)id;
    return NULL;
}

static const salus_plugin_entry g_entry = {
    .struct_size = FIXTURE_STRUCT_SIZE,
    .abi = {FIXTURE_ABI_MAJOR, 0},
    .init = fixture_init,
    .deinit = NULL,
    .get_manifest = fixture_get_manifest,
    .get_factory = fixture_get_factory,
};

#ifdef FIXTURE_NO_ENTRY
/* A plausible-looking export under the wrong name. */
EXPORT const salus_plugin_entry *salus_plugin_entry_v1(salus_abi_version host_abi) {
    (void)host_abi;
    return &g_entry;
}
#else
EXPORT const salus_plugin_entry *salus_plugin_get_entry(salus_abi_version host_abi) {
    (void)host_abi;
    return &g_entry;
}
#endif
