/**
 * @module roles/admin/init
 * `spur init`: spur.conf and the cluster secret for replicated controllers (roles/spur-init.ts).
 */
import type { ParsedArgs } from "citty";
import type { InitFlags } from "../spur-init.ts";
import { defineAdminCommand } from "./command.ts";

export const initArgs = {
  controllers: { type: "string", valueHint: "H1,H2,H3", default: "127.0.0.1,127.0.0.1,127.0.0.1", description: "controller hosts, in Raft id order (3 or 5; one host: ports apart)" },
  port: { type: "string", valueHint: "P", default: "6817", description: "their client port" },
  "raft-port": { type: "string", valueHint: "P", description: "their Raft port (default: --port + 1)" },
  conf: { type: "string", valueHint: "FILE", default: "/etc/spur/spur.conf", description: "the spur.conf to write" },
  name: { type: "string", valueHint: "NAME", default: "spur", description: "ClusterName" },
  "secret-file": { type: "string", valueHint: "FILE", description: "the shared secret (default: cluster-secret beside --conf)" },
  "state-dir": { type: "string", valueHint: "DIR", default: "/var/spool/spur/ctld", description: "StateSaveLocation" },
  "spool-dir": { type: "string", valueHint: "DIR", default: "/var/spool/spur/d", description: "SlurmdSpoolDir" },
  tls: { type: "boolean", description: "a cluster CA and per-host certificates (TLS everywhere)" },
  "tls-hosts": { type: "string", valueHint: "NODE,...", description: "with --tls: certificates for these hosts too (nodes, login hosts)" },
  force: { type: "boolean", description: "replace an existing configuration and secret (locks out running replicas)" },
} as const;

export const initFlagsOf = (a: ParsedArgs<typeof initArgs>): InitFlags => ({
  controllers: a.controllers, port: a.port, raftPort: a["raft-port"], conf: a.conf, name: a.name, secretFile: a["secret-file"],
  stateDir: a["state-dir"], spoolDir: a["spool-dir"], tls: a.tls, tlsHosts: a["tls-hosts"], force: a.force,
});

export default defineAdminCommand({
  meta: { name: "spur init", description: "write spur.conf + secret for replicated controllers" },
  args: initArgs,
  run: async ({ args }) => (await import("../spur-init.ts")).initMain(initFlagsOf(args)),
});
