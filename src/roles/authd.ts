/**
 * @module roles/authd
 * `spur authd`: the light role a login host runs under AuthType=auth/spur. It holds no
 * job slots and registers nowhere; it only vouches for local callers on SpurAuthSocket=
 * (net/auth/authd.ts), as spurd does on compute nodes. The host must be one the
 * controllers know (SpurLoginHosts=), and hold the cluster secret readable by root only.
 */
import { confPath, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { authType, shortHostname, startLocalAuthd } from "./auth-setup.ts";

export interface AuthdFlags {
  /** spur.conf (default: $SPUR_CONF, else /etc/spur/spur.conf). */
  conf?: string | undefined;
  /** The host name credentials carry (default: this host's short name). */
  host?: string | undefined;
}

/** Serves until SIGTERM/SIGINT (flags: admin/authd.ts). */
export async function authdMain(flags: AuthdFlags): Promise<number> {
  const path = confPath(flags.conf);
  const conf = readConf(path);
  if (authType(conf) !== "auth/spur") {
    process.stderr.write(`spur: error: ${path} has AuthType=${authType(conf)}: spur authd serves auth/spur only\n`);
    return 1;
  }
  const logger = createLogger("spur-authd");
  const served = startLocalAuthd(conf, path, flags.host ?? shortHostname(), logger);
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  served?.stop();
  return 0;
}
