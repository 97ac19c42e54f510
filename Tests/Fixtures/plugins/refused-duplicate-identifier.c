/* Declares org.example.migraine.attack, which the C example owns (the fixture's id,
 * org.example, covers the name, so only the duplicate check can refuse it). */
#define FIXTURE_PLUGIN_ID "org.example"
#define FIXTURE_TYPE_ID "org.example.migraine.attack"
#include "fixture.h"
