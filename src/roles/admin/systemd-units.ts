/**
 * @module roles/admin/systemd-units
 * `spur systemd-units`: unit files for spurctld, spurd and spurrestd, printed or written
 * into a directory (ops/systemd-units.ts).
 */
import type { ParsedArgs } from "citty";
import type { SystemdUnitsFlags } from "../../ops/systemd-units.ts";
import { defineAdminCommand, writeOps } from "./command.ts";

export const systemdUnitsArgs = {
  dir: { type: "string", valueHint: "DIR", description: "write the units here (e.g. /etc/systemd/system) instead of printing them" },
  "bin-dir": { type: "string", valueHint: "DIR", default: "/usr/local/bin", description: "where the role links are (install.sh --prefix)" },
  conf: { type: "string", valueHint: "PATH", default: "/etc/spur/spur.conf", description: "the spur.conf the roles read" },
  force: { type: "boolean", description: "replace units in --dir that differ" },
} as const;

export const systemdUnitsFlagsOf = (a: ParsedArgs<typeof systemdUnitsArgs>): SystemdUnitsFlags => ({ dir: a.dir, binDir: a["bin-dir"], confPath: a.conf, force: a.force });

export default defineAdminCommand({
  meta: { name: "spur systemd-units", description: "print (or write) systemd units for spurctld, spurd, spurrestd" },
  args: systemdUnitsArgs,
  run: async ({ args }) => writeOps((await import("../../ops/systemd-units.ts")).systemdUnitsMain(systemdUnitsFlagsOf(args))),
});
