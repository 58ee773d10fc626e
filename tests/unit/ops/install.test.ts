/**
 * @module tests/unit/ops/install
 * install.sh end to end against a local HTTP server (Bun.serve on 127.0.0.1, port 0) and
 * local files: a fake "binary" (a shell script printing a version) is installed into a
 * temporary prefix; checksum mismatches are refused with the old install left intact.
 */
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { chmodSync, existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { LINK_NAMES } from "../../../src/main-names.ts";

const ROOT = resolve(import.meta.dirname, "../../..");
const INSTALL = join(ROOT, "install.sh");
const V1 = '#!/bin/sh\necho "spur 1.0.0 (fake)"\n';
const V2 = '#!/bin/sh\necho "spur 2.0.0 (fake)"\n';
const sha = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");
const hasCmd = (cmd: string): boolean => Bun.spawnSync(["sh", "-c", `command -v ${cmd}`]).exitCode === 0;

/** What the server answers: path → body. Tests replace entries. */
const served = new Map<string, string | Buffer>();
let server: ReturnType<typeof Bun.serve>;
let base = "";
let work = "";

function serveRelease(binary: string, sum = sha(binary)): void {
  served.clear();
  for (const arch of ["x64", "arm64"]) {
    served.set(`/spur-linux-${arch}`, binary);
    served.set(`/spur-linux-${arch}.sha256`, `${sum}  spur-linux-${arch}\n`);
  }
  served.set("/install.sh", readFileSync(INSTALL, "utf8"));
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(cmd: string[], env: Record<string, string> = {}): Promise<Run> {
  const proc = Bun.spawn(cmd, {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(work, "home"), TMPDIR: work, ...env },
    stdout: "pipe", stderr: "pipe", cwd: work,
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const install = (args: string[], env: Record<string, string> = {}): Promise<Run> => run(["bash", INSTALL, ...args], env);

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1", port: 0,
    fetch(req) {
      const body = served.get(new URL(req.url).pathname);
      return body === undefined ? new Response("not found\n", { status: 404 }) : new Response(body);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  await server.stop(true);
});

beforeEach(() => {
  if (work !== "") rmSync(work, { recursive: true, force: true });
  work = mkdtempSync(join(tmpdir(), "spur-install-test-"));
  serveRelease(V1);
});

const prefix = (): string => join(work, "bin");
const installed = (): string => readFileSync(join(prefix(), "spur"), "utf8");

describe("install.sh from a server", () => {
  it("downloads, verifies and installs the file for this machine, with the Slurm-named links", async () => {
    const piped = hasCmd("curl")
      ? await run(["bash", "-c", `curl -fsSL ${base}/install.sh | bash -s -- --prefix "${prefix()}"`], { SPUR_BASE_URL: base })
      : await install(["--prefix", prefix()], { SPUR_BASE_URL: base });
    expect(piped.stderr).toBe("");
    expect(piped.code).toBe(0);
    expect(installed()).toBe(V1);
    expect(statSync(join(prefix(), "spur")).mode & 0o777).toBe(0o755);
    for (const name of LINK_NAMES) expect(readlinkSync(join(prefix(), name))).toBe("spur");
    expect(piped.stdout).toContain(`sha256 ok (${sha(V1)})`);
    expect(piped.stdout).toContain(`installed ${prefix()}/spur`);
    expect(piped.stdout).toContain("version: spur 1.0.0 (fake)");
  });

  it("refuses a checksum mismatch and leaves the old install intact", async () => {
    expect((await install(["--base-url", base, "--prefix", prefix()])).code).toBe(0);
    serveRelease(V2, sha(V1));
    const r = await install(["--base-url", base, "--prefix", prefix()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("checksum MISMATCH");
    expect(r.stderr).toContain(`expected ${sha(V1)}, got ${sha(V2)}`);
    expect(installed()).toBe(V1);
    expect(readlinkSync(join(prefix(), "sbatch"))).toBe("spur");
    expect(Bun.spawnSync(["ls", "-A", prefix()]).stdout.toString()).not.toContain(".spur.new");
  });

  it("is idempotent: a second run changes nothing; a new release replaces the file", async () => {
    expect((await install(["--base-url", base, "--prefix", prefix()])).code).toBe(0);
    const inode = statSync(join(prefix(), "spur")).ino;
    const again = await install(["--base-url", base, "--prefix", prefix()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("already this version");
    expect(again.stdout).toContain("links already in place");
    expect(statSync(join(prefix(), "spur")).ino).toBe(inode);
    serveRelease(V2);
    const upgrade = await install(["--base-url", base, "--prefix", prefix()]);
    expect(upgrade.code).toBe(0);
    expect(installed()).toBe(V2);
    expect(upgrade.stdout).toContain("version: spur 2.0.0 (fake)");
  });

  it("writes no links with --no-links, and never replaces a file that is not its link", async () => {
    const r = await install(["--base-url", base, "--prefix", prefix(), "--no-links"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("links not written (--no-links)");
    for (const name of LINK_NAMES) expect(existsSync(join(prefix(), name))).toBe(false);
    writeFileSync(join(prefix(), "sbatch"), "#!/bin/sh\necho real slurm\n");
    const linked = await install(["--base-url", base, "--prefix", prefix()]);
    expect(linked.code).toBe(0);
    expect(lstatSync(join(prefix(), "sbatch")).isSymbolicLink()).toBe(false);
    expect(linked.stdout).toContain("not replacing existing files that are not links to spur: sbatch");
    expect(readlinkSync(join(prefix(), "srun"))).toBe("spur");
  });

  it("says what is missing when nothing tells it where to download from", async () => {
    const r = await install(["--prefix", prefix()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("set SPUR_BASE_URL or pass --base-url");
  });
});

describe("install.sh --from a local file (air-gapped)", () => {
  const drop = (): string => {
    const path = join(work, "spur-linux-x64");
    writeFileSync(path, V1);
    return path;
  };

  it("uses the .sha256 file beside it and fetches nothing", async () => {
    const file = drop();
    writeFileSync(`${file}.sha256`, `${sha(V1)}  spur-linux-x64\n`);
    const r = await install(["--from", file, "--prefix", prefix()], { SPUR_BASE_URL: "http://127.0.0.1:1" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(installed()).toBe(V1);
    expect(r.stdout).toContain("nothing is downloaded");
  });

  it("takes --sha256, refuses a wrong one, and refuses a file with no checksum at all", async () => {
    const file = drop();
    const good = await install(["--from", file, "--sha256", sha(V1).toUpperCase(), "--prefix", prefix()]);
    expect(good.code).toBe(0);
    expect(installed()).toBe(V1);
    writeFileSync(file, V2);
    const wrong = await install(["--from", file, "--sha256", sha(V1), "--prefix", prefix()]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain("checksum MISMATCH");
    expect(installed()).toBe(V1);
    const none = await install(["--from", file, "--prefix", prefix()]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no checksum for");
    const insecure = await install(["--from", file, "--prefix", prefix(), "--insecure-no-verify", "--no-links"]);
    expect(insecure.code).toBe(0);
    expect(installed()).toBe(V2);
  });

  it.skipIf(!hasCmd("openssl"))("checks an Ed25519 signature with openssl when a public key is given", async () => {
    const file = drop();
    writeFileSync(`${file}.sha256`, `${sha(V1)}\n`);
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const pub = join(work, "spur.pub.pem");
    writeFileSync(pub, publicKey.export({ type: "spki", format: "pem" }));
    writeFileSync(`${file}.sig`, sign(null, Buffer.from(V1), privateKey));
    const good = await install(["--from", file, "--pubkey", pub, "--prefix", prefix()]);
    expect(good.stdout).toContain("signature ok");
    expect(good.code).toBe(0);
    writeFileSync(`${file}.sig`, sign(null, Buffer.from("something else"), privateKey));
    chmodSync(join(prefix(), "spur"), 0o755);
    rmSync(join(prefix(), "spur"));
    const bad = await install(["--from", file, "--pubkey", pub, "--prefix", prefix()]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("signature check FAILED");
    expect(existsSync(join(prefix(), "spur"))).toBe(false);
  });
});

describe("install.sh and the binary agree", () => {
  it("writes exactly the link names main.ts answers to", () => {
    const line = /^LINKS="([^"]*)"/m.exec(readFileSync(INSTALL, "utf8"))?.[1] ?? "";
    expect(line.split(" ").sort()).toEqual([...LINK_NAMES].sort());
  });
});
