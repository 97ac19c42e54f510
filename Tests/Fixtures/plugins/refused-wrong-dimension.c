/* A cumulative type measured in degrees Celsius: temperatures cannot be summed. */
#define FIXTURE_UNIT "degC"
#include "fixture.h"
