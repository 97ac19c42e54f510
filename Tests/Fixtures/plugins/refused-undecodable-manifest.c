/* Returns bytes that are not a PluginManifest. */
#define FIXTURE_GARBAGE_MANIFEST 1
#include "fixture.h"
