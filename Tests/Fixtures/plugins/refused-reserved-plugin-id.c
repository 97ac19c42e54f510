/* A third-party plugin claiming the org.salus. namespace. */
#define FIXTURE_PLUGIN_ID "org.salus.core"
#include "fixture.h"
