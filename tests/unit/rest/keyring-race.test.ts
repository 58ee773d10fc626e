/**
 * `spur up --controllers 3` starts three replicas on one state directory at once, and each
 * creates jwt_hs256.key if missing. The old exists-then-create-exclusive let one die with
 * EEXIST in about 1 of 6 starts. Here several processes are released at the same instant
 * on a fresh directory, several rounds: every one must succeed and all must read one key.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const KEYRING = resolve(__dirname, "../../../src/net/rest/keyring.ts");

/** One racer: waits for the shared start instant, creates the key, prints it (hex). */
function racer(path: string, goAtMs: number): Promise<{ code: number; out: string; err: string }> {
  const script = `
    const { ensureKeyFile } = await import(${JSON.stringify(KEYRING)});
    const { readFileSync } = await import("node:fs");
    while (Date.now() < ${goAtMs}) {}
    ensureKeyFile(${JSON.stringify(path)});
    process.stdout.write(readFileSync(${JSON.stringify(path)}).toString("hex"));`;
  return new Promise((done) => {
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += String(d)));
    child.stderr.on("data", (d) => (err += String(d)));
    child.on("close", (code) => done({ code: code ?? -1, out, err }));
  });
}

describe("JWT key creation", () => {
  it("racing creators all succeed and agree on one whole key", async () => {
    for (let round = 0; round < 5; round++) {
      const dir = mkdtempSync(join(tmpdir(), "spur-keyrace-"));
      dirs.push(dir);
      const path = join(dir, "jwt_hs256.key");
      const goAt = Date.now() + 1500; // every racer is loaded and spinning by then
      const results = await Promise.all([0, 1, 2, 3].map(() => racer(path, goAt)));
      for (const r of results) expect(r, `round ${round}: ${r.err}`).toMatchObject({ code: 0 });
      const keys = new Set(results.map((r) => r.out));
      expect(keys.size, `round ${round}`).toBe(1);
      expect(readFileSync(path).toString("hex")).toBe([...keys][0]);
      expect(readFileSync(path)).toHaveLength(32);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(["jwt_hs256.key"]); // no temporary file left behind
    }
  }, 60_000);
});
