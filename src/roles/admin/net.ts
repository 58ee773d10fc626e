/**
 * @module roles/admin/net
 * `spur net keygen|init|apply`: the WireGuard overlay for multi-site clusters
 * (ops/net-cli.ts, ops/net-apply.ts; docs/overlay.md).
 */
import type { ParsedArgs } from "citty";
import type { NetInitFlags } from "../../ops/net-cli.ts";
import type { NetApplyFlags } from "../../ops/net-apply.ts";
import { defineAdminCommand, writeOps } from "./command.ts";

const keyFile = { type: "string", valueHint: "PATH", default: "/etc/spur/wg.key", description: "this node's private key (mode 600)" } as const;

export const keygenArgs = { "key-file": keyFile } as const;

export const initArgs = {
  plan: { type: "positional", required: false, valueHint: "PLAN.json", description: "the sites, their nodes and (optional) public keys" },
  out: { type: "string", valueHint: "DIR", default: "spur-net", description: "where each node's wg-quick config and plan.json go" },
  "key-file": { ...keyFile, description: "where a node whose public key is in the plan keeps its private key" },
} as const;

export const applyArgs = {
  conf: { type: "positional", required: false, valueHint: "CONF", description: "the node's wg-quick config (written by spur net init)" },
  interface: { type: "string", valueHint: "NAME", default: "spur0", description: "the interface to bring up" },
  "dry-run": { type: "boolean", alias: "n", description: "print the commands and the config (key hidden), change nothing" },
} as const;

export const netInitFlagsOf = (a: ParsedArgs<typeof initArgs>): NetInitFlags => ({ plan: a.plan, out: a.out, keyFile: a["key-file"] });
export const netApplyFlagsOf = (a: ParsedArgs<typeof applyArgs>): NetApplyFlags => ({ conf: a.conf, iface: a.interface, dryRun: a["dry-run"] });

export default defineAdminCommand({
  meta: { name: "spur net", description: "WireGuard overlay for multi-site clusters (docs/overlay.md)" },
  subCommands: {
    keygen: defineAdminCommand({
      meta: { name: "spur net keygen", description: "on a node: make its key unless it exists; print the public half" },
      args: keygenArgs,
      run: async ({ args }) => writeOps((await import("../../ops/net-cli.ts")).netKeygen(args["key-file"])),
    }),
    init: defineAdminCommand({
      meta: { name: "spur net init", description: "write each node's wg-quick config and plan.json" },
      args: initArgs,
      run: async ({ args }) => writeOps((await import("../../ops/net-cli.ts")).netInit(netInitFlagsOf(args))),
    }),
    apply: defineAdminCommand({
      meta: { name: "spur net apply", description: "bring the interface up with ip and wg (kernel module, else wireguard-go)" },
      args: applyArgs,
      run: async ({ args }) => writeOps((await import("../../ops/net-apply.ts")).netApplyMain(netApplyFlagsOf(args))),
    }),
  },
});
