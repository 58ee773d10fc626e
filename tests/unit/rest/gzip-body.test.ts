/**
 * rest/gzip-body: which answers are gzipped (Accept-Encoding, size, loopback), and that the one
 * gzip member built around a kept, once-deflated middle decodes (CRC-32 and length checked by
 * zlib) to prefix + middle + tail, for generated parts; and GET jobs/ through the app: a
 * client across a network that takes gzip gets the identity body's bytes gzipped, a loopback
 * one the body as it is. SEED=n replays a run; the seed is in the title.
 */
import { gunzipSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { acceptsGzip, deflatedMiddle, GZIP_BYTES_MIN, gzipParts, gzipWanted, isLoopback } from "../../../src/net/rest/gzip-body.ts";
import { emptyJobInfo } from "../../../src/sched/model/records.ts";
import { createFixture, NOW_SEC } from "./fixture.ts";
import { createRng } from "./rng.ts";

const SEED = Number(process.env.SEED ?? Date.now() % 100_000);

describe(`gzip-body (SEED=${SEED})`, () => {
  it("reads Accept-Encoding as RFC 9110 does", () => {
    expect(acceptsGzip("gzip, deflate, br, zstd")).toBe(true);
    expect(acceptsGzip("deflate, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("x-gzip")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0.0, *")).toBe(false);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("*;q=0")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
    expect(acceptsGzip("br, deflate")).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip(undefined)).toBe(false);
  });

  it("compresses big bodies for network peers only", () => {
    for (const a of ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"]) expect(isLoopback(a), a).toBe(true);
    for (const a of ["10.0.0.5", "::ffff:10.0.0.5", "fe80::1", "128.0.0.1"]) expect(isLoopback(a), a).toBe(false);
    const big = { acceptEncoding: "gzip", peerAddress: "10.0.0.5", bodyBytes: GZIP_BYTES_MIN };
    expect(gzipWanted(big)).toBe(true);
    expect(gzipWanted({ ...big, bodyBytes: GZIP_BYTES_MIN - 1 })).toBe(false);
    expect(gzipWanted({ ...big, peerAddress: "127.0.0.1" })).toBe(false);
    expect(gzipWanted({ ...big, peerAddress: "" }), "a peer not known (Unix socket)").toBe(false);
    expect(gzipWanted({ ...big, acceptEncoding: undefined })).toBe(false);
  });

  it("one gzip member around the kept middle decodes to the whole body", async () => {
    const rng = createRng(SEED);
    const text = (n: number) => Buffer.from(Array.from({ length: n }, () => rng.pick(['{"a":1}', "ü", "x", ",", "\n", "€", String(rng.int(1e6))])).join(""));
    for (let i = 0; i < 40; i++) {
      const prefix = text(rng.int(3));
      const middle = text(rng.int(i < 5 ? 3 : 20_000));
      const body = Buffer.concat([prefix, middle]);
      const kept = await deflatedMiddle(prefix, middle);
      expect(await deflatedMiddle(prefix, middle), "deflated once per buffer").toBe(kept);
      for (let t = 0; t < 2; t++) {
        const tail = text(rng.int(300));
        const gz = Buffer.concat(gzipParts(kept, tail));
        // gunzipSync checks the trailer's CRC-32 and length
        expect(gunzipSync(gz).equals(Buffer.concat([body, tail])), `SEED=${SEED} case ${i}`).toBe(true);
        // one member: the deflate stream alone, up to the trailer, holds the whole body (curl reads just the first member)
        expect(inflateRawSync(gz.subarray(10, gz.length - 8)).equals(Buffer.concat([body, tail])), `SEED=${SEED} case ${i} single member`).toBe(true);
      }
    }
  });

  it("GET jobs/: gzip for a network client that takes it, the same bytes as identity; identity on loopback", async () => {
    const fx = await createFixture();
    // ~1.5 MiB of jobs: over GZIP_BYTES_MIN
    for (let i = 0; i < 400; i++) fx.jobs.push({ ...emptyJobInfo(), jobId: i + 1, name: `job${i}`, user: "alice", uid: 1001, submitTime: NOW_SEC - i, state: "PENDING" });
    const token = await fx.token("alice");
    const get = async (address: string, acceptEncoding?: string) => {
      const headers: Record<string, string> = { "x-slurm-user-token": token, ...(acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding }) };
      const env = { requestIP: () => ({ address, port: 40000 }) };
      const res = await fx.app.request("/slurm/v0.0.45/jobs/", { headers }, env);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get("vary")).toBe("accept-encoding");
      expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
      return { encoding: res.headers.get("content-encoding"), bytes };
    };
    const identity = await get("10.0.0.5");
    expect(identity.encoding).toBeNull();
    expect(identity.bytes.length).toBeGreaterThan(GZIP_BYTES_MIN);
    const source = (b: Buffer) => b.toString("utf8").replace(/"source": ?"[^"]*"/, '"source":""');
    for (let round = 0; round < 2; round++) {
      const gz = await get("10.0.0.5", "gzip, deflate, br");
      expect(gz.encoding, `round ${round}`).toBe("gzip");
      expect(gz.bytes.length).toBeLessThan(identity.bytes.length / 10);
      expect(source(gunzipSync(gz.bytes))).toBe(source(identity.bytes));
    }
    const local = await get("127.0.0.1", "gzip");
    expect(local.encoding).toBeNull();
    expect(source(local.bytes)).toBe(source(identity.bytes));
  });
});
