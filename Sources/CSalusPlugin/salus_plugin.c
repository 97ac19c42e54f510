/*
 * The C side of the plugin ABI is the header alone; this file lets SwiftPM build the target and
 * pins the layout of ABI 1.0 and what 1.1 appended on 64-bit Linux, so an accidental edit of a struct fails to compile
 * instead of breaking every plugin built before it.
 */
#include "salus_plugin.h"

#include <assert.h>

#if UINTPTR_MAX == 0xffffffffffffffffu
static_assert(sizeof(salus_abi_version) == 4, "salus_abi_version is 4 bytes");
static_assert(offsetof(salus_host, abi) == 4, "salus_host.abi follows struct_size");
static_assert(offsetof(salus_host, log) == 32, "salus_host 1.0 layout");
static_assert(sizeof(salus_host) == 40, "salus_host 1.0 is 40 bytes");
static_assert(offsetof(salus_plugin_entry, init) == 8, "salus_plugin_entry 1.0 layout");
static_assert(offsetof(salus_plugin_entry, get_factory) == 32, "salus_plugin_entry 1.0 layout");
static_assert(sizeof(salus_plugin_entry) == 40, "salus_plugin_entry 1.0 is 40 bytes");
static_assert(offsetof(salus_sample_validator, validate) == 8, "salus_sample_validator 1.0 layout");
static_assert(offsetof(salus_sample_validator, validate_fields) == 16, "salus_sample_validator 1.1 appends validate_fields");
static_assert(sizeof(salus_sample_validator) == 24, "salus_sample_validator 1.1 is 24 bytes");
static_assert(sizeof(salus_validation_error) == 32, "salus_validation_error 1.1 is 32 bytes");
#endif
