/*
 * top_module.c: what makes gpumon-top.so a module of this gpumon: its
 * version, which the launcher (cmd_top_launch.c) checks before calling
 * cmd_top. The live view itself is cmd_top.c and the top_* files.
 */
const char gpumon_top_version[] = GPUMON_VERSION;
