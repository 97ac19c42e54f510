/* Built for a future ABI major. */
#define FIXTURE_ABI_MAJOR 2
#include "fixture.h"
