/* A third-party type identifier that is not reverse-DNS. */
#define FIXTURE_PLUGIN_ID "org.example.headache"
#define FIXTURE_TYPE_ID "HeadacheSeverity"
#include "fixture.h"
