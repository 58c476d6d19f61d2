/* sim_profile_r535.c: profile of build/sim/r535-43 (driver 535.43.02, 32-byte _v3 entries). */
#include "sim_state.h"

const int sim_profile = SIM_PROFILE_R535_43;
