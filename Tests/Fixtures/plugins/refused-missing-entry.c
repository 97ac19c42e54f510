/* Exports salus_plugin_entry_v1 instead of salus_plugin_get_entry. */
#define FIXTURE_NO_ENTRY 1
#include "fixture.h"
