/**
 * @module roles/admin/commands
 * The `spur` command tree for citty: each sub-command's module loads when the command line
 * names it (`spur up` loads admin/up.ts only); `spur --help` reads every module's meta, so
 * they hold declarations and load their implementation when they run.
 */
import { defineAdminCommand } from "./command.ts";

export const spurCommand = defineAdminCommand({
  meta: { name: "spur", description: "Spur's admin tool: a local cluster, configuration, migration and operations" },
  subCommands: {
    up: () => import("./up.ts").then((m) => m.default),
    down: () => import("./down.ts").then((m) => m.default),
    demo: () => import("./demo.ts").then((m) => m.default),
    init: () => import("./init.ts").then((m) => m.default),
    authd: () => import("./authd.ts").then((m) => m.default),
    exec: () => import("./exec.ts").then((m) => m.default),
    controller: () => import("./controller.ts").then((m) => m.default),
    "install-links": () => import("./install-links.ts").then((m) => m.default),
    check: () => import("./check.ts").then((m) => m.default),
    "import-slurm": () => import("./import-slurm.ts").then((m) => m.default),
    net: () => import("./net.ts").then((m) => m.default),
    "systemd-units": () => import("./systemd-units.ts").then((m) => m.default),
    "tls-cert": () => import("./tls-cert.ts").then((m) => m.default),
    sim: () => import("./sim.ts").then((m) => m.default),
    cdi: () => import("./cdi.ts").then((m) => m.default),
    version: () => import("./version.ts").then((m) => m.default),
    help: defineAdminCommand({ meta: { name: "spur help", description: "this help, or a command's (spur help up)" }, args: {}, rest: { name: "COMMAND" } }),
  },
});

/** After the commands in `spur --help`: the roles main.ts runs by name. */
export const ROLES_FOOTER = "\nRoles run by name too: spur spurctld|spurd|spurrestd|sbatch|squeue|... [ARGS] (as the links do).\n";
