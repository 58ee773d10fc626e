/**
 * @module roles/admin/tls-cert
 * `spur tls-cert`: a self-signed certificate for spurrestd, or with --ca-dir the cluster's
 * CA and a certificate per host for every listener (ops/tls-cert.ts); prints the spur.conf lines.
 */
import type { ParsedArgs } from "citty";
import type { TlsCertFlags } from "../../ops/tls-cert.ts";
import { defineAdminCommand, writeOps } from "./command.ts";

export const tlsCertArgs = {
  "out-dir": { type: "string", valueHint: "DIR", default: ".", description: "where spurrestd.crt and spurrestd.key go (without --ca-dir)" },
  "ca-dir": { type: "string", valueHint: "DIR", description: "the cluster CA (made once): a certificate per --host signed by it, for every listener" },
  host: { type: "string", valueHint: "H1,H2", description: "the host (with --ca-dir: hosts) to certify (default: this host's name)" },
  days: { type: "string", valueHint: "N", default: "825", description: "validity" },
} as const;

export const tlsCertFlagsOf = (a: ParsedArgs<typeof tlsCertArgs>): TlsCertFlags => ({ outDir: a["out-dir"], caDir: a["ca-dir"], host: a.host, days: a.days });

export default defineAdminCommand({
  meta: { name: "spur tls-cert", description: "TLS certificates: spurrestd's, or a cluster CA and per-host ones (prints spur.conf lines)" },
  args: tlsCertArgs,
  run: async ({ args }) => writeOps((await import("../../ops/tls-cert.ts")).tlsCertMain(tlsCertFlagsOf(args))),
});
