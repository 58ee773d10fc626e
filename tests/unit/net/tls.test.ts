/**
 * net/tls: when a plaintext listener is refused, how configured paths expand per
 * host, and that the certificate files and the cluster CA made by `spur tls-cert
 * --ca-dir` are what a listener serves and a client trusts (a real handshake on
 * loopback: Bun.serve with the host certificate, fetch with and without the CA).
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { configureClientTls, expandHostPath, fetchTls, listenerTls, plaintextRefusal, rpcScheme, rpcUrl } from "../../../src/net/tls.ts";
import { tlsCertMain } from "../../../src/ops/tls-cert.ts";

const conf = (entries: Record<string, string>) => new Map(Object.entries(entries));
const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

describe("plaintext listeners", () => {
  it("are allowed on loopback, refused elsewhere unless SpurAllowPlaintext=yes or TLS is on", () => {
    expect(plaintextRefusal(conf({}), "127.0.0.1", "spurctld")).toBeUndefined();
    expect(plaintextRefusal(conf({}), "::1", "spurd")).toBeUndefined();
    expect(plaintextRefusal(conf({}), "localhost", "spurd")).toBeUndefined();
    expect(plaintextRefusal(conf({}), "10.0.0.1", "spurctld")).toMatch(/^spurctld: error: refusing plaintext RPC on 10\.0\.0\.1 .*SpurTlsCertFile=.*SpurAllowPlaintext=yes/);
    expect(plaintextRefusal(conf({}), "0.0.0.0", "spurd")).toMatch(/refusing plaintext/);
    expect(plaintextRefusal(conf({ spurallowplaintext: "yes" }), "10.0.0.1", "spurd")).toBeUndefined();
    expect(plaintextRefusal(conf({ spurtlscertfile: "/x.crt" }), "10.0.0.1", "spurd")).toBeUndefined();
    expect(() => listenerTls(conf({}), "10.0.0.1", "spurd")).toThrow(/refusing plaintext/);
    expect(listenerTls(conf({}), "127.0.0.1", "spurd")).toBeUndefined();
  });

  it("a missing key or unreadable certificate stops the daemon with the key's name", () => {
    expect(() => listenerTls(conf({ spurtlscertfile: "/x.crt" }), "127.0.0.1", "spurd")).toThrow(/SpurTlsKeyFile= is not/);
    expect(() => listenerTls(conf({ spurtlscertfile: "/nonexistent/%h.crt", spurtlskeyfile: "/k" }), "127.0.0.1", "spurd")).toThrow(/cannot read TLS certificate \(SpurTlsCertFile\) \/nonexistent\//);
  });

  it("%h is the short host name", () => {
    expect(expandHostPath("/etc/spur/tls/%h.crt", "node7.example.org")).toBe("/etc/spur/tls/node7.crt");
    expect(expandHostPath("/etc/spur/tls/ca.crt", "node7")).toBe("/etc/spur/tls/ca.crt");
  });
});

describe.skipIf(!hasOpenssl)("the cluster CA (spur tls-cert --ca-dir)", () => {
  it("issues host certificates a client trusting ca.crt accepts, and one without it refuses", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "spur-tls-")), "tls");
    const out = tlsCertMain({ caDir: dir, host: "localhost" });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toContain(`SpurTlsCaFile=${dir}/ca.crt\nSpurTlsCertFile=${dir}/%h.crt\nSpurTlsKeyFile=${dir}/%h.key\n`);
    const g = conf({ spurtlscafile: join(dir, "ca.crt"), spurtlscertfile: join(dir, "%h.crt"), spurtlskeyfile: join(dir, "%h.key") });
    const tls = listenerTls(new Map([...g, ["spurtlscertfile", join(dir, "localhost.crt")], ["spurtlskeyfile", join(dir, "localhost.key")]]), "127.0.0.1", "test");
    expect(tls?.cert).toBe(readFileSync(join(dir, "localhost.crt"), "utf8"));
    // A second run keeps the CA (hosts added later must chain to the same one).
    const ca = readFileSync(join(dir, "ca.crt"), "utf8");
    expect(tlsCertMain({ caDir: dir, host: "other.example.org" }).exitCode).toBe(0);
    expect(readFileSync(join(dir, "ca.crt"), "utf8")).toBe(ca);
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: tls as { cert: string; key: string }, fetch: () => new Response("ok") });
    try {
      configureClientTls(g);
      expect(rpcScheme()).toBe("https");
      const url = rpcUrl("127.0.0.1", server.port as number);
      expect(url).toBe(`https://127.0.0.1:${server.port}`);
      expect(await (await fetch(url, fetchTls(url))).text()).toBe("ok");
      await expect(fetch(url)).rejects.toThrow();
      await expect(fetch(url.replace("https:", "http:"))).rejects.toThrow();
    } finally {
      server.stop(true);
      configureClientTls(conf({}));
    }
    expect(rpcScheme()).toBe("http");
  });

  it("rejects a bad host name or day count in Slurm-style words", () => {
    expect(tlsCertMain({ caDir: "/tmp/x", host: "a b" }).stderr).toBe('spur: error: invalid host name "a b"\n');
    expect(tlsCertMain({ caDir: "/tmp/x", days: "0" }).exitCode).toBe(1);
  });
});
