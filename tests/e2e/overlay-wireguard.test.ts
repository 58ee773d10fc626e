/**
 * End-to-end: a WireGuard overlay that is really up. Three hosts are network namespaces on
 * one bridge (veth pairs, IPv6 off so that nothing but our traffic crosses it). `spur net
 * init` writes their configs, `spur net apply` (run inside each namespace) brings each
 * interface up: the kernel module where it exists, else wireguard-go. Shown: ping and TCP
 * over overlay addresses, `wg show` transfer counters growing on each host, and an nftables
 * counter on the bridge that sees WireGuard's UDP and nothing else between hosts. Then peer
 * distribution: a controller (AuthType=auth/munge: its clients are not on loopback) and one
 * spurd per host; n3 joined knowing no peers and n1/n2 did not know it: the controller
 * gives everyone the others without restarting any interface; n3 set DOWN is dropped and
 * its key stops working.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { replacePeers } from "../../src/net/wg-conf.ts";
import { mungeKey, startMunged } from "../../src/ops/munged.ts";
import { BIN, eventually, isRoot } from "./cluster.ts";

const sh = (cmd: string, args: string[], input?: string) => spawnSync(cmd, args, { encoding: "utf8", timeout: 60_000, ...(input === undefined ? {} : { input }) });
const have = (cmd: string) => sh("sh", ["-c", `command -v ${cmd}`]).status === 0;
/** `ip netns add` works here (a container without CAP_SYS_ADMIN refuses it even to root). */
function netnsWorks(): boolean {
  const name = `spurprobe${process.pid}`;
  const made = sh("ip", ["netns", "add", name]).status === 0;
  if (made) sh("ip", ["netns", "del", name]);
  else console.warn("overlay e2e skipped: this machine refuses `ip netns add`");
  return made;
}
const CAN_RUN = isRoot() && ["ip", "wg", "nft", "munged", "ping"].every(have) && (existsSync("/sys/module/wireguard") || (have("wireguard-go") && existsSync("/dev/net/tun"))) && netnsWorks();

const SFX = randomBytes(2).toString("hex");
const NET = `10.213.${1 + (randomBytes(1)[0] ?? 0) % 250}`;
const BRIDGE = `spbr${SFX}`;
const TABLE = `spurwg${SFX}`;
const HOSTS = ["n1", "n2", "n3"] as const;
type Host = (typeof HOSTS)[number];
const ns = (h: Host) => `spw${SFX}-${h}`;
const underlay = (h: Host) => `${NET}.${10 + HOSTS.indexOf(h) + 1}`;
const iface = (h: Host) => `wg-${h}`;
const overlay: Record<string, string> = {};
let dir = "";
const pids: number[] = [];

function must(cmd: string, args: string[], input?: string): string {
  const r = sh(cmd, args, input);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}
const inNs = (h: Host, args: string[]) => sh("ip", ["netns", "exec", ns(h), ...args]);

function buildHosts(): void {
  must("ip", ["link", "add", BRIDGE, "type", "bridge"]);
  must("ip", ["addr", "add", `${NET}.1/24`, "dev", BRIDGE]);
  must("ip", ["link", "set", BRIDGE, "up"]);
  for (const h of HOSTS) {
    must("ip", ["netns", "add", ns(h)]);
    must("ip", ["netns", "exec", ns(h), "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]);
    const veth = `spv${SFX}${h}`;
    must("ip", ["link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns(h)]);
    must("ip", ["link", "set", veth, "master", BRIDGE, "up"]);
    must("ip", ["-n", ns(h), "addr", "add", `${underlay(h)}/24`, "dev", "eth0"]);
    must("ip", ["-n", ns(h), "link", "set", "eth0", "up"]);
    must("ip", ["-n", ns(h), "link", "set", "lo", "up"]);
  }
  // Between hosts (frames the bridge forwards from one of our ports to another): WireGuard's UDP,
  // ARP, anything else. The hook sees every bridge on the machine: other bridges' frames are let by.
  must("nft", ["-f", "-"], `table bridge ${TABLE} {
  counter wg {}
  counter other {}
  chain forward {
    type filter hook forward priority 0; policy accept;
    iifname != "spv${SFX}*" accept
    ether type arp accept
    ether type ip udp sport 51820 udp dport 51820 counter name "wg" accept
    counter name "other" accept
  }
}
`);
}

const nftPackets = (name: string): number => {
  const out = JSON.parse(must("nft", ["-j", "list", "counter", "bridge", TABLE, name])) as { nftables: { counter?: { packets: number } }[] };
  return out.nftables.find((e) => e.counter !== undefined)?.counter?.packets ?? -1;
};

/** `wg show IFACE transfer` on a host: public key → [rx, tx] bytes. */
function transfer(h: Host): Map<string, [number, number]> {
  const r = inNs(h, ["wg", "show", iface(h), "transfer"]);
  const out = new Map<string, [number, number]>();
  for (const line of r.stdout.trim().split("\n").filter(Boolean)) {
    const [key = "", rx = "0", tx = "0"] = line.split("\t");
    out.set(key, [Number(rx), Number(tx)]);
  }
  return out;
}
const peerKeys = (h: Host): string[] => inNs(h, ["wg", "show", iface(h), "peers"]).stdout.trim().split("\n").filter(Boolean);
const ifindex = (h: Host): string => /^(\d+):/.exec(inNs(h, ["ip", "-o", "link", "show", iface(h)]).stdout)?.[1] ?? "";
/** Reachability over the overlay; a loaded machine may delay one answer, so success is awaited (up to 20 s). */
const reaches = (from: Host, to: Host): Promise<true> => eventually(`${from} reaches ${to}`, () => (ping(from, to) ? true : undefined));
const ping = (from: Host, to: Host, count = 2): boolean => inNs(from, ["ping", "-c", String(count), "-W", "2", "-i", "0.2", overlay[to] ?? ""]).status === 0;
const pubKey = (h: Host): string => {
  const priv = /PrivateKey = (\S+)/.exec(readFileSync(join(dir, "wg", `${h}.conf`), "utf8"))?.[1] ?? "";
  return must("wg", ["pubkey"], `${priv}\n`).trim();
};

function startIn(h: Host | undefined, name: string, argv: string[]): void {
  const log = openSync(join(dir, `${name}.log`), "a");
  const [cmd, ...args] = h === undefined ? argv : ["ip", "netns", "exec", ns(h), ...argv];
  const child = spawn(cmd ?? "", args, { detached: true, stdio: ["ignore", log, log] });
  closeSync(log);
  child.unref();
  if (child.pid !== undefined) pids.push(child.pid);
}

function tearDown(): void {
  for (const pid of pids.reverse()) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* gone */
    }
  }
  for (const h of HOSTS) {
    sh("ip", ["-n", ns(h), "link", "del", iface(h)]);
    sh("ip", ["netns", "del", ns(h)]);
  }
  sh("ip", ["link", "del", BRIDGE]);
  sh("nft", ["delete", "table", "bridge", TABLE]);
  if (dir !== "" && process.env.SPUR_E2E_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
}

describe.skipIf(!CAN_RUN)("a WireGuard overlay between network namespaces", () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "spur-e2e-wg-"));
    chmodSync(dir, 0o755);
    buildHosts();
    const plan = { cidr: "10.215.0.0/16", sites: [{ name: "lab", nodes: HOSTS.map((h) => ({ name: h, endpoint: `${underlay(h)}:51820` })) }] };
    writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
    must(BIN, ["net", "init", join(dir, "plan.json"), "--out", join(dir, "wg")]);
    const planned = JSON.parse(readFileSync(join(dir, "wg", "plan.json"), "utf8")) as { nodes: { name: string; address: string }[] };
    for (const n of planned.nodes) overlay[n.name] = n.address;
    // n3 joins later: it knows no peers, and n1/n2 were planned without it.
    for (const h of HOSTS) {
      const path = join(dir, "wg", `${h}.conf`);
      const text = readFileSync(path, "utf8");
      const keep = text.split(/(?=^\[Peer\])/m).slice(1).filter((block) => h !== "n3" && !block.includes("# n3"));
      writeFileSync(path, `${replacePeers(text, []).trimEnd()}\n\n${keep.join("").trim()}\n`, { mode: 0o600 });
    }
  }, 60_000);
  afterAll(tearDown);

  it("spur net apply brings each host's interface up (kernel module, else wireguard-go)", () => {
    for (const h of HOSTS) {
      const r = sh("ip", ["netns", "exec", ns(h), BIN, "net", "apply", join(dir, "wg", `${h}.conf`), "--interface", iface(h)]);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^${iface(h)} up( \\(wireguard-go: no kernel module\\))?: ${overlay[h]?.replaceAll(".", "\\.")}/16, ${h === "n3" ? 0 : 1} peers?\\n$`));
    }
    expect(peerKeys("n1")).toEqual([pubKey("n2")]);
  });

  it("carries ping and TCP between overlay addresses, and nothing else crosses the bridge", async () => {
    await reaches("n1", "n2");
    const script = join(dir, "tcp.ts");
    writeFileSync(script, `const [mode, host, port] = process.argv.slice(2);
if (mode === "serve") Bun.listen({ hostname: host, port: Number(port), socket: { data(s, d) { s.write(d); s.end(); } } });
else Bun.connect({ hostname: host, port: Number(port), socket: { open(s) { s.write("hello over wireguard"); }, data(_s, d) { process.stdout.write(String(d)); process.exit(0); }, error() { process.exit(1); } } }).catch(() => process.exit(1));
`);
    startIn("n2", "tcp-server", [process.execPath, script, "serve", overlay.n2 ?? "", "7700"]);
    const echoed = await eventually("a TCP echo over the overlay", () => {
      const r = inNs("n1", [process.execPath, script, "connect", overlay.n2 ?? "", "7700"]);
      return r.status === 0 ? r.stdout : undefined;
    });
    expect(echoed).toBe("hello over wireguard");
    expect(nftPackets("wg")).toBeGreaterThan(0);
    expect(nftPackets("other")).toBe(0);
  }, 60_000);

  it("wg show counts the traffic on both hosts, and the counters grow", async () => {
    const before = [transfer("n1").get(pubKey("n2")), transfer("n2").get(pubKey("n1"))];
    for (const t of before) expect(t?.[0]).toBeGreaterThan(0);
    await reaches("n2", "n1");
    const after = [transfer("n1").get(pubKey("n2")), transfer("n2").get(pubKey("n1"))];
    for (const [i, t] of after.entries()) {
      expect(t?.[0]).toBeGreaterThan(before[i]?.[0] ?? 0);
      expect(t?.[1]).toBeGreaterThan(before[i]?.[1] ?? 0);
    }
    expect(ping("n1", "n3", 1)).toBe(false); // nobody knows n3 yet
    expect(nftPackets("other")).toBe(0);
  });

  describe("peers from the controller", () => {
    const conf = () => join(dir, "spur.conf");
    let indexes: string[] = [];

    beforeAll(() => {
      const m = join(dir, "munge");
      mkdirSync(m);
      mungeKey(join(m, "key"));
      const munged = startMunged({ dir: m, keyFile: join(m, "key") });
      if (!munged.ok) throw new Error(munged.error.message);
      pids.push(munged.value.pid);
      writeFileSync(join(dir, "secret"), `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
      const nodes = HOSTS.map((h, i) => `NodeName=${h} NodeAddr=${underlay(h)} Port=${7810 + i} CPUs=1 RealMemory=500 OverlayEndpoint=${underlay(h)}:51820`);
      writeFileSync(conf(), [
        "ClusterName=spurwg", `ControlAddr=${NET}.1`, "ControlPort=7800", "AuthType=auth/munge", `AuthInfo=socket=${munged.value.socketPath}`,
        `StateSaveLocation=${dir}/ctld`, `SlurmdSpoolDir=${dir}/spool-%n`, `SpurClusterSecretFile=${dir}/secret`, "SpurAllowPlaintext=yes",
        `OverlayConf=${dir}/wg/%n.conf`, "OverlayInterface=wg-%n", "SlurmdTimeout=300", ...nodes, "PartitionName=debug Nodes=n[1-3] Default=YES State=UP", "",
      ].join("\n"));
      indexes = HOSTS.map(ifindex);
      startIn(undefined, "spurctld", [BIN, "spurctld", "--conf", conf()]);
      for (const h of HOSTS) startIn(h, `spurd-${h}`, [BIN, "spurd", "-N", h, "--conf", conf()]);
    }, 60_000);

    it("gives a host that joins later its peers, and the others learn it, without restarting any interface", async () => {
      await eventually("n3 has both peers", () => (peerKeys("n3").length === 2 ? true : undefined), 45_000);
      await eventually("n1 and n2 know n3", () => (peerKeys("n1").includes(pubKey("n3")) && peerKeys("n2").includes(pubKey("n3")) ? true : undefined), 45_000);
      await reaches("n1", "n3");
      await reaches("n3", "n2");
      expect(HOSTS.map(ifindex)).toEqual(indexes);
      expect(nftPackets("other")).toBe(0);
    }, 60_000);

    it("serves a command from another host by its MUNGE credential, and refuses one without", async () => {
      const squeue = (confPath: string) => inNs("n1", ["env", `SPUR_CONF=${confPath}`, BIN, "squeue", "-h", "-o", "%i"]);
      const served = await eventually("squeue from n1", () => {
        const r = squeue(conf());
        return r.status === 0 ? r : undefined;
      });
      expect(served.stderr).toBe("");
      const loopbackConf = join(dir, "loopback.conf");
      writeFileSync(loopbackConf, readFileSync(conf(), "utf8").replace("AuthType=auth/munge", "AuthType=auth/loopback"));
      const refused = squeue(loopbackConf);
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain("Protocol authentication error");
    }, 60_000);

    it("drops a host set DOWN: its key stops working", async () => {
      const down = spawnSync(BIN, ["scontrol", "update", "nodename=n3", "state=down", "reason=removed"], { encoding: "utf8", env: { ...process.env, SPUR_CONF: conf() } });
      expect(down.stderr).toBe("");
      await eventually("n1 and n2 drop n3", () => (!peerKeys("n1").includes(pubKey("n3")) && !peerKeys("n2").includes(pubKey("n3")) ? true : undefined), 45_000);
      expect(peerKeys("n3").length).toBe(2); // n3 still holds its peers and its key ...
      expect(ping("n3", "n1", 2)).toBe(false); // ... which no other host accepts any more
      await reaches("n1", "n2");
    }, 60_000);
  });
});
