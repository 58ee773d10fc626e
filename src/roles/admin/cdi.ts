/**
 * @module roles/admin/cdi
 * `spur cdi generate`: CDI specs for this node's GPUs (roles/devices-cli.ts).
 */
import type { ParsedArgs } from "citty";
import type { CdiFlags } from "../devices-cli.ts";
import { defineAdminCommand } from "./command.ts";

export const generateArgs = {
  vendor: { type: "string", valueHint: "amd|nvidia", description: "only this vendor's GPUs (default: both)" },
  format: { type: "string", valueHint: "json|yaml", default: "json", description: "the spec's format" },
  root: { type: "string", valueHint: "DIR", default: "/", description: "discover from this sysfs snapshot" },
  output: { type: "string", valueHint: "DIR", description: "write the specs here (e.g. /etc/cdi) instead of stdout" },
} as const;

export const cdiFlagsOf = (a: ParsedArgs<typeof generateArgs>): CdiFlags => ({ vendor: a.vendor, format: a.format, root: a.root, output: a.output });

export default defineAdminCommand({
  meta: { name: "spur cdi", description: "CDI specs for this node's GPUs" },
  subCommands: {
    generate: defineAdminCommand({
      meta: { name: "spur cdi generate", description: "CDI specs for this node's GPUs" },
      args: generateArgs,
      run: async ({ args }) => (await import("../devices-cli.ts")).cdiMain(cdiFlagsOf(args)),
    }),
  },
});
