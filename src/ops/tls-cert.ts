/**
 * @module ops/tls-cert
 * `spur tls-cert [--out-dir DIR] [--host NAME] [--days N]`: a self-signed
 * certificate and key (EC P-256) for spurrestd's TLS listener, written as
 * DIR/spurrestd.crt and DIR/spurrestd.key (mode 0600), with the host name,
 * localhost and 127.0.0.1 as subject alternative names. Uses the openssl
 * command (Debian package `openssl`); bring-your-own certificates need nothing.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";

export interface CliOut {
  stdout: string;
  stderr: string;
  exitCode: number;
}

function opt(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

export function tlsCertMain(argv: readonly string[]): CliOut {
  const dir = resolve(opt(argv, "--out-dir") ?? ".");
  const host = opt(argv, "--host") ?? hostname();
  const days = opt(argv, "--days") ?? "825";
  if (!/^[A-Za-z0-9.-]{1,253}$/.test(host)) return { stdout: "", stderr: `spur: error: invalid host name "${host}"\n`, exitCode: 1 };
  if (!/^[1-9][0-9]{0,4}$/.test(days)) return { stdout: "", stderr: `spur: error: --days takes a whole number, got "${days}"\n`, exitCode: 1 };
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
