/**
 * @module ops/tls-cert
 * `spur tls-cert [--out-dir DIR] [--host NAME] [--days N]`: a self-signed
 * certificate and key (EC P-256) for spurrestd's TLS listener, written as
 * DIR/spurrestd.crt and DIR/spurrestd.key (mode 0600), with the host name,
 * localhost and 127.0.0.1 as subject alternative names.
 * `spur tls-cert --ca-dir DIR [--host NAME,...] [--days N]`: the cluster's small CA
 * (DIR/ca.crt, DIR/ca.key; made once, kept after) and one certificate per host signed
 * by it (DIR/HOST.crt, DIR/HOST.key), for every listener (net/tls.ts); prints the
 * spur.conf lines, with %h so that one spur.conf serves every host.
 * Uses the openssl command (Debian package `openssl`); bring-your-own certificates
 * need nothing.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";

export interface CliOut {
  stdout: string;
  stderr: string;
  exitCode: number;
}


const HOST_RE = /^[A-Za-z0-9.:-]{1,253}$/;
const fail = (message: string): CliOut => ({ stdout: "", stderr: `spur: error: ${message}\n`, exitCode: 1 });
const NO_OPENSSL = "the openssl command is needed (apt-get install openssl), or bring your own certificate";

/** Runs openssl; the error text, or undefined on success. */
function openssl(args: string[]): string | undefined {
  const r = spawnSync("openssl", args, { encoding: "utf8" });
  if (r.error !== undefined) return NO_OPENSSL;
  return r.status === 0 ? undefined : `openssl ${args[0]} failed: ${r.stderr.trim()}`;
}

const sanOf = (host: string, extra: readonly string[] = []): string => {
  const ip = /^[0-9.]+$/.test(host) || host.includes(":");
  const names = new Set([ip ? `IP:${host}` : `DNS:${host}`, `DNS:${host.split(".")[0]}`, "DNS:localhost", "IP:127.0.0.1", ...extra]);
  if (ip) names.delete(`DNS:${host.split(".")[0]}`);
  return [...names].join(",");
};

/** The CA in `dir` (made when absent) and one signed certificate per host (`extraSans[host]`: more names, e.g. "IP:10.0.0.5"); errors as text. */
export function issueClusterCerts(dir: string, hosts: readonly string[], days: string, extraSans: Readonly<Record<string, readonly string[]>> = {}): string | undefined {
  mkdirSync(dir, { recursive: true });
  const caCrt = join(dir, "ca.crt");
  const caKey = join(dir, "ca.key");
  if (!existsSync(caCrt) || !existsSync(caKey)) {
    const err = openssl([
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-sha256", "-keyout", caKey, "-out", caCrt,
      "-days", String(Number(days) * 2), "-subj", "/CN=Spur cluster CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    if (err !== undefined) return err;
    chmodSync(caKey, 0o600);
  }
  for (const host of hosts) {
    const short = host.includes(":") || /^[0-9.]+$/.test(host) ? host : (host.split(".")[0] ?? host);
    const key = join(dir, `${short}.key`);
    const csr = join(dir, `${short}.csr`);
    const ext = join(dir, `${short}.ext`);
    writeFileSync(ext, `subjectAltName=${sanOf(host, extraSans[host])}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n`);
    const err =
      openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-sha256", "-keyout", key, "-out", csr, "-subj", `/CN=${host}`]) ??
      openssl(["x509", "-req", "-in", csr, "-CA", caCrt, "-CAkey", caKey, "-CAcreateserial", "-sha256", "-days", days, "-extfile", ext, "-out", join(dir, `${short}.crt`)]);
    rmSync(csr, { force: true });
    rmSync(ext, { force: true });
    if (err !== undefined) return err;
    chmodSync(key, 0o600);
  }
  return undefined;
}

/** spur.conf lines that turn TLS on for every listener with the certificates of `dir`. */
export function clusterTlsConfLines(dir: string): string[] {
  return [
    `SpurTlsCaFile=${join(dir, "ca.crt")}`, `SpurTlsCertFile=${join(dir, "%h.crt")}`, `SpurTlsKeyFile=${join(dir, "%h.key")}`,
    `RestTlsCert=${join(dir, "%h.crt")}`, `RestTlsKey=${join(dir, "%h.key")}`,
  ];
}

export interface TlsCertFlags {
  /** Validity in days (default 825). */
  days?: string | undefined;
  /** The cluster CA's directory: a certificate per host signed by it (else one self-signed for spurrestd). */
  caDir?: string | undefined;
  /** The host, or with caDir the hosts (comma-separated); default: this host's name. */
  host?: string | undefined;
  /** Without caDir: where spurrestd.crt and .key go (default "."). */
  outDir?: string | undefined;
}

/** `spur tls-cert` (flags: roles/admin/tls-cert.ts). */
export function tlsCertMain(opt: TlsCertFlags): CliOut {
  const days = opt.days ?? "825";
  if (!/^[1-9][0-9]{0,4}$/.test(days)) return fail(`--days takes a whole number, got "${days}"`);
  const caDir = opt.caDir;
  if (caDir !== undefined) {
    const hosts = (opt.host ?? hostname()).split(",").filter(Boolean);
    const bad = hosts.find((h) => !HOST_RE.test(h));
    if (bad !== undefined || hosts.length === 0) return fail(`invalid host name "${bad ?? ""}"`);
    const dir = resolve(caDir);
    const err = issueClusterCerts(dir, hosts, days);
    if (err !== undefined) return fail(err);
    return { stdout: `${clusterTlsConfLines(dir).join("\n")}\n`, stderr: `wrote ${join(dir, "ca.crt")} and certificates for ${hosts.join(", ")}: copy ca.crt and each host's HOST.crt/HOST.key to it; keep ca.key off the cluster\n`, exitCode: 0 };
  }
  const dir = resolve(opt.outDir ?? ".");
  const host = opt.host ?? hostname();
  if (!HOST_RE.test(host)) return fail(`invalid host name "${host}"`);
  mkdirSync(dir, { recursive: true });
  const cert = join(dir, "spurrestd.crt");
  const key = join(dir, "spurrestd.key");
  const r = spawnSync("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-sha256",
    "-keyout", key, "-out", cert, "-days", days, "-subj", `/CN=${host}`,
    "-addext", `subjectAltName=DNS:${host},DNS:localhost,IP:127.0.0.1`,
  ], { encoding: "utf8" });
  if (r.error !== undefined) return { stdout: "", stderr: "spur: error: the openssl command is needed (apt-get install openssl), or bring your own certificate\n", exitCode: 1 };
  if (r.status !== 0) return { stdout: "", stderr: `spur: error: openssl failed: ${r.stderr}`, exitCode: 1 };
  chmodSync(key, 0o600);
  return { stdout: `RestTlsCert=${cert}\nRestTlsKey=${key}\n`, stderr: "", exitCode: 0 };
}
