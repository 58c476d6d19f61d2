/* sim_profile_legacy470.c: profile of build/sim/legacy-470 (driver 470, older symbols only). */
#include "sim_state.h"

const int sim_profile = SIM_PROFILE_LEGACY_470;
