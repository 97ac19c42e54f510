/* A third-party plugin claiming a HealthKit identifier. */
#define FIXTURE_PLUGIN_ID "org.example.steps"
#define FIXTURE_TYPE_ID "HKQuantityTypeIdentifierStepCount"
#include "fixture.h"
