/**
 * @module roles/admin/authd
 * `spur authd`: vouch for this host's users (AuthType=auth/spur; login hosts) (roles/authd.ts).
 */
import { defineAdminCommand } from "./command.ts";

export default defineAdminCommand({
  meta: { name: "spur authd", description: "vouch for this host's users on SpurAuthSocket= (AuthType=auth/spur; login hosts)" },
  args: {
    conf: { type: "string", valueHint: "FILE", description: "spur.conf (default: $SPUR_CONF, else /etc/spur/spur.conf)" },
    host: { type: "string", valueHint: "NAME", description: "the host name credentials carry (default: this host's short name)" },
  },
  run: async ({ args }) => (await import("../authd.ts")).authdMain({ conf: args.conf, host: args.host }),
});
