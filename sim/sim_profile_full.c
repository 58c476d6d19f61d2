/* sim_profile_full.c: profile of build/sim/libnvidia-ml.so.1 (API 13, driver 610). */
#include "sim_state.h"

const int sim_profile = SIM_PROFILE_FULL;
