/**
 * @module net/tls
 * TLS for every Spur listener (spurctld's and spurd's Connect ports; spurrestd has
 * its own RestTls* keys) and for every client of them (CLIs, spurd, spurctld calling
 * agents, spurrestd). spur.conf says it once for the whole cluster:
 *   SpurTlsCertFile=/etc/spur/tls/%h.crt   this host's certificate (%h = short host name)
 *   SpurTlsKeyFile=/etc/spur/tls/%h.key    its key
 *   SpurTlsCaFile=/etc/spur/tls/ca.crt     the CA clients trust (omitted: the system's roots)
 *   SpurAllowPlaintext=yes                 permits plaintext listeners off loopback
 * With SpurTlsCertFile set every controller and agent URL is https://. Without it a
 * daemon listens in plaintext only on a loopback address, unless SpurAllowPlaintext=yes:
 * otherwise it refuses to start, naming the keys to set. `spur tls-cert --ca-dir`
 * (ops/tls-cert.ts) and `spur init --tls` / `spur up --tls` make the CA and host certs.
 * Failure policy: a configured file that cannot be read stops the daemon at start-up
 * (never a silent fall-back to plaintext); a client that cannot read the CA file uses
 * the system roots, so the handshake fails with the certificate error, not a crash.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { isLoopback } from "./peer-identity.ts";
import { type ClientTls, setClientTls, setClientTlsFallback, tlsEnabled } from "./client-tls.ts";

export interface ServerTls {
  cert: string;
  key: string;
}

type Globals = ReadonlyMap<string, string>;

const YES = /^(yes|true|1)$/i;

/** `%h` in a configured path → this host's short name, so one spur.conf serves every host. */
export function expandHostPath(path: string, host = hostname()): string {
  return path.replaceAll("%h", host.split(".")[0] ?? host);
}


/** Why a plaintext listener on `host` is refused (undefined: allowed). Pure. */
export function plaintextRefusal(g: Globals, host: string, role: string): string | undefined {
  if (tlsEnabled(g) || isLoopback(host) || host === "localhost" || YES.test(g.get("spurallowplaintext") ?? "")) return undefined;
  return `${role}: error: refusing plaintext RPC on ${host} (not a loopback address): set SpurTlsCertFile= and SpurTlsKeyFile= (spur tls-cert --ca-dir DIR makes them), or SpurAllowPlaintext=yes in spur.conf`;
}

/** The certificate and key a daemon listening on `host` serves with (undefined: plaintext, allowed). */
export function listenerTls(g: Globals, host: string, role: string): ServerTls | undefined {
  const refusal = plaintextRefusal(g, host, role);
  if (refusal !== undefined) throw new Error(refusal);
  if (!tlsEnabled(g)) return undefined;
  const certFile = expandHostPath(g.get("spurtlscertfile") ?? "");
  const keyFile = expandHostPath(g.get("spurtlskeyfile") ?? "");
  if (keyFile === "") throw new Error(`${role}: error: SpurTlsCertFile= is set but SpurTlsKeyFile= is not`);
  const read = (what: string, file: string): string => {
    try {
      return readFileSync(file, "utf8");
    } catch (e) {
      throw new Error(`${role}: error: cannot read ${what} ${file}: ${(e as Error).message}`);
    }
  };
  return { cert: read("TLS certificate (SpurTlsCertFile)", certFile), key: read("TLS key (SpurTlsKeyFile)", keyFile) };
}

/** How a controller connects to its Raft peers: TLS trusting the cluster CA when TLS is on (undefined: plain TCP). */
export function raftClientTls(g: Globals): { ca?: string } | undefined {
  if (!tlsEnabled(g)) return undefined;
  const caFile = g.get("spurtlscafile") ?? "";
  if (caFile === "") return {};
  try {
    return { ca: readFileSync(expandHostPath(caFile), "utf8") };
  } catch (e) {
    throw new Error(`spurctld: error: cannot read the TLS CA (SpurTlsCaFile) ${caFile}: ${(e as Error).message}`);
  }
}

// --- client side (state in client-tls.ts, which CLIs use without node:fs) ---

export { connectTls, fetchTls, rpcScheme, rpcUrl, tlsEnabled } from "./client-tls.ts";

/** The client side from a daemon's or CLI's parsed spur.conf (reads the CA file). */
export function clientTlsOf(g: Globals): ClientTls {
  const caFile = g.get("spurtlscafile");
  let ca: string | undefined;
  if (caFile !== undefined && caFile !== "") {
    try {
      ca = readFileSync(expandHostPath(caFile), "utf8");
    } catch {
      ca = undefined;
    }
  }
  return ca === undefined ? { https: tlsEnabled(g) } : { https: tlsEnabled(g), ca };
}

/** Set the client side from a daemon's or CLI's parsed spur.conf. */
export function configureClientTls(g: Globals): void {
  setClientTls(clientTlsOf(g));
}

/** How to find spur.conf when nothing configured the client side yet (set by roles/conf-file). */
export function setClientTlsLoader(load: () => Globals | undefined): void {
  setClientTlsFallback(() => {
    const g = load();
    return g === undefined ? undefined : clientTlsOf(g);
  });
}
