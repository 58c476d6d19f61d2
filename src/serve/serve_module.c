/*
 * serve_module.c: what makes gpumon-serve.so a module of this gpumon: its
 * version, which the launcher (cmd_serve_launch.c) checks before calling
 * cmd_serve. The exporter itself is cmd_serve.c and the serve_* files.
 */
const char gpumon_serve_version[] = GPUMON_VERSION;
