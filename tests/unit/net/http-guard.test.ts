/**
 * Limits on the RPC listener (net/http-guard): half-sent headers, half-sent bodies and idle
 * connections are closed, one address cannot hold more than its share of connections, an
 * oversized body is answered 413 (not 429), and a request that is only waiting for its
 * answer (a long poll) is never cut. No timing assertions: a limit that does not work
 * leaves the socket open and the test runs into its timeout.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect as tlsConnect } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { startRpcServer, type RpcServer } from "../../../src/net/rpc-server.ts";

const servers: RpcServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close().catch(() => undefined);
});

async function server(limits: Record<string, number>, readBarrier?: () => Promise<undefined>, tls?: { cert: string; key: string }): Promise<RpcServer> {
  const s = await startRpcServer(() => undefined, { host: "127.0.0.1", port: 0 }, { "/x/Slow": () => ({ ok: true }) }, {
    limits, ...(readBarrier ? { readBarrier } : {}), ...(tls ? { tls } : {}),
  });
  servers.push(s);
  return s;
}

/** Open a socket, write `text`, resolve with everything received once the server closes it. */
function exchange(port: number, text: string): { sock: Socket; closed: Promise<string> } {
  const sock = connect(port, "127.0.0.1", () => sock.write(text));
  let got = "";
  sock.on("data", (d) => (got += String(d)));
  sock.on("error", () => undefined);
  return { sock, closed: new Promise((done) => sock.on("close", () => done(got))) };
}

describe("RPC listener limits", () => {
  it("closes a connection whose headers never finish, and an idle one", async () => {
    const s = await server({ headersMs: 200, idleMs: 200 });
    const half = exchange(s.port, "POST /x/Slow HTTP/1.1\r\nHost: x\r\nContent-Len");
    const idle = exchange(s.port, "");
    expect(await half.closed).toBe("");
    expect(await idle.closed).toBe("");
  }, 10_000);

  it("closes a connection whose body never finishes", async () => {
    const s = await server({ bodyMs: 200 });
    const half = exchange(s.port, "POST /x/Slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":");
    expect(await half.closed).toBe("");
  }, 10_000);

  it("answers 413 to a body over the cap, before reading it", async () => {
    const s = await server({ bodyBytesMax: 1000 });
    const big = exchange(s.port, "POST /x/Slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{}");
    const answer = await big.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain("resource_exhausted");
  }, 10_000);

  it("caps the connections one address may hold", async () => {
    const s = await server({ perAddressMax: 3, headersMs: 60_000 });
    const held = [0, 1, 2].map(() => exchange(s.port, ""));
    await new Promise((r) => setTimeout(r, 100));
    const extra = exchange(s.port, "");
    expect(await extra.closed).toBe("");
    expect(held.every((h) => !h.sock.destroyed)).toBe(true);
    for (const h of held) h.sock.destroy();
  }, 10_000);

  it("does not cut a request that is only waiting for its answer", async () => {
    const s = await server({ headersMs: 100, idleMs: 100, bodyMs: 100 }, () => new Promise((r) => setTimeout(() => r(undefined), 600)));
    const res = await fetch(`http://127.0.0.1:${s.port}/x/Slow`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  }, 10_000);
});

const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;

/** A self-signed certificate for 127.0.0.1 (made once). */
function selfSigned(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "spur-guard-tls-"));
  const made = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem"), "-days", "1", "-subj", "/CN=127.0.0.1"]);
  if (made.status !== 0) throw new Error(String(made.stderr));
  return { cert: readFileSync(join(dir, "c.pem"), "utf8"), key: readFileSync(join(dir, "k.pem"), "utf8") };
}

/** A TLS client that writes `text` once its handshake is done; resolves once the server closes. */
function tlsExchange(port: number, text: string): Promise<string> {
  let got = "";
  return new Promise((done) => {
    const sock = tlsConnect({ port, host: "127.0.0.1", rejectUnauthorized: false }, () => sock.write(text));
    sock.on("data", (d) => (got += String(d)));
    sock.on("error", () => undefined);
    sock.on("close", () => done(got));
  });
}

describe.skipIf(!hasOpenssl)("RPC listener limits over TLS", () => {
  const tls = hasOpenssl ? selfSigned() : { cert: "", key: "" };

  it("closes a connection that never starts its handshake", async () => {
    const s = await server({ headersMs: 200 }, undefined, tls);
    expect(await exchange(s.port, "").closed).toBe(""); // Bun's node:https kept this one open for good
  }, 10_000);

  it("caps the raw connections one address may hold", async () => {
    const s = await server({ headersMs: 60_000, perAddressMax: 2 }, undefined, tls);
    const held = [0, 1].map(() => exchange(s.port, ""));
    await new Promise((r) => setTimeout(r, 100));
    expect(await exchange(s.port, "").closed).toBe("");
    expect(held.every((h) => !h.sock.destroyed)).toBe(true);
    for (const h of held) h.sock.destroy();
  }, 10_000);

  it("closes a TLS connection whose headers never finish, and an idle one", async () => {
    const s = await server({ headersMs: 200, idleMs: 200 }, undefined, tls);
    expect(await tlsExchange(s.port, "POST /x/Slow HTTP/1.1\r\nHost: x\r\nContent-Len")).toBe("");
    expect(await tlsExchange(s.port, "")).toBe("");
  }, 10_000);

  it("serves requests, long polls included", async () => {
    const s = await server({ headersMs: 100, idleMs: 100, bodyMs: 100 }, () => new Promise((r) => setTimeout(() => r(undefined), 600)), tls);
    const answer = await tlsExchange(s.port, "POST /x/Slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('{"ok":true}');
  }, 10_000);
});
