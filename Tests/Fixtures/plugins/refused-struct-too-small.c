/* Claims an entry of 16 bytes, smaller than ABI 1.0's. */
#define FIXTURE_STRUCT_SIZE 16
#include "fixture.h"
